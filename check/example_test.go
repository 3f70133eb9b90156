package check_test

import (
	"fmt"

	"github.com/crashsim/crashsim/check"
)

func ExampleLookup() {
	r, ok := check.Lookup("rename-before-sync")
	fmt.Println(ok, r.ID, r.Severity)
	fmt.Println(r.Title)
	fmt.Println(r.Good)

	_, ok = check.Lookup("rename-before-fsync")
	fmt.Println(ok)
	// Output:
	// true rename-before-sync error
	// Rename publishes a file whose data is not durable
	// openat(AT_FDCWD, "config.json.tmp", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3
	// write(3, "{\"replicas\": 3}\n", 16) = 16
	// fsync(3) = 0
	// close(3) = 0
	// rename("config.json.tmp", "config.json") = 0
	// openat(AT_FDCWD, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC) = 4
	// fsync(4) = 0
	// false
}

func ExampleParseSeverity() {
	failOn, _ := check.ParseSeverity("warning")
	for _, r := range check.Rules() {
		if r.Severity < failOn {
			fmt.Println(r.ID, "does not fail the run")
		}
	}
	// Output:
	// unaligned-write does not fail the run
}
