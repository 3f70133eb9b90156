module github.com/crashsim/crashsim

go 1.26.0

require (
	github.com/alecthomas/kong v1.17.0
	github.com/google/go-cmp v0.7.0
	github.com/hanwen/go-fuse/v2 v2.9.0
	github.com/rogpeppe/go-internal v1.16.0
	golang.org/x/sys v0.28.0
)

require golang.org/x/tools v0.26.0 // indirect
