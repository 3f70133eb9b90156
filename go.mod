module github.com/crashsim/crashsim

go 1.26.0

require (
	github.com/KimMachineGun/automemlimit v1.0.2
	github.com/alecthomas/kong v1.17.0
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/google/go-cmp v0.7.0
	github.com/hanwen/go-fuse/v2 v2.9.0
	github.com/pelletier/go-toml/v2 v2.4.3
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
)

require (
	golang.org/x/sys v0.34.0
	golang.org/x/text v0.14.0 // indirect
)

require (
	github.com/pbnjay/memory v0.0.0-20210728143218-7b4eea64cf58 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
