package oracle

import "testing"

// TestAdversarialCapSysAdmin: the pre-check reads the capability, not the
// uid: root without CAP_SYS_ADMIN is refused (issue 14, point 7).
func TestAdversarialCapSysAdmin(t *testing.T) {
	for _, tc := range []struct {
		status string
		want   bool
	}{
		{"Uid:\t0\t0\t0\t0\nCapEff:\t000001ffffffffff\n", true},
		{"Uid:\t0\t0\t0\t0\nCapEff:\t00000000a80425fb\n", false}, // docker's default set: no CAP_SYS_ADMIN
		{"Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000200000\n", true},
		{"Uid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n", false},
	} {
		got, err := capEffHas(tc.status, capSysAdmin)
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.status, got, err, tc.want)
		}
	}
	if _, err := capEffHas("Uid:\t0\n", capSysAdmin); err == nil {
		t.Error("a status without CapEff gave no error")
	}
}
