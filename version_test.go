package crashsim

import "testing"

func TestSemver(t *testing.T) {
	for v, want := range map[string]string{"v1.2.3": "1.2.3", "v0.0.0-20260101000000-abcdef123456": "0.0.0-20260101000000-abcdef123456", "(devel)": "0.0.0-devel", "": "0.0.0-devel"} {
		if got := semver(v); got != want {
			t.Errorf("semver(%q) = %q, want %q", v, got, want)
		}
	}
	if tool := Tool(); tool.Name != "crashsim" || tool.Version == "" || tool.SemVer == "" {
		t.Errorf("Tool() = %+v", tool)
	}
}
