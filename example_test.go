package crashsim_test

import (
	"fmt"
	"log"
	"path/filepath"

	"github.com/crashsim/crashsim"
)

// Example checks a recorded save (Python's save without f.flush()) with
// the settings of a .crashsim.toml, as crashsim check does.
func Example() {
	cfg, err := crashsim.ReadConfig("testdata/example.toml")
	if err != nil {
		log.Fatal(err)
	}
	dir := "fixtures/traces/python-noflush"
	c := crashsim.Check{
		Inputs: crashsim.Inputs{Traces: []string{dir + "/f-ttt-y-xx.strace"}, Listing: dir + "/initial.list"},
		Scope:  crashsim.Scope{Roots: cfg.Roots},
		Models: cfg.Models(),
	}
	res, err := c.Run()
	if err != nil {
		log.Fatal(err)
	}
	defer res.Close()
	opt, err := res.Report(cfg.Filter(), "", nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	for f, err := range res.Findings() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(f.Line, f.Rule.ID, filepath.Base(f.Path), f.Models)
	}
	fmt.Println("suppressed:", opt.Left.Suppressed)
	// Output:
	// 397 fsync-before-write config.txt [posix ext4 xfs]
	// 398 data-not-synced config.txt [posix ext4 xfs]
	// 400 rename-before-sync config.txt [posix ext4 xfs]
	// suppressed: 1
}
