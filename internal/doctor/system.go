package doctor

import (
	"context"
	"os"
	"os/exec"
	"time"
)

// System is the machine crashsim runs on.
func System() Env {
	return Env{
		LookPath: exec.LookPath,
		Output: func(name string, args ...string) (string, error) {
			// A program that hangs must not hang the doctor.
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			out, err := exec.CommandContext(ctx, name, args...).Output()
			return string(out), err
		},
		Exists: func(path string) bool {
			_, err := os.Stat(path)
			return err == nil
		},
		Status: func() (string, error) {
			b, err := os.ReadFile("/proc/self/status")
			return string(b), err
		},
	}
}
