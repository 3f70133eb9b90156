//go:build !linux

package explore

import "os/exec"

// jailCommand: namespaces are Linux's; elsewhere checkers run unjailed.
func jailCommand(string, []string) *exec.Cmd { return nil }

func canJail() bool { return false }
