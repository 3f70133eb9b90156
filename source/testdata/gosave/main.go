// Command gosave writes a file and never syncs it.
package main

import (
	"os"
)

func save(name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if _, err := f.Write([]byte("hello\n")); err != nil { // want write
		return err
	}
	return f.Close()
}

func main() {
	name := "out.txt"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	if err := save(name); err != nil {
		os.Exit(1)
	}
}
