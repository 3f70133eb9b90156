package main

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
)

// durationMapper reads the time flags (--timeout, --linger): a Go
// duration ("90s", "1m30s", "500ms") or, as timeout(1) and sleep(1) take
// it, a plain number of seconds ("60", "2.5"). A negative time is refused:
// no flag has a meaning for one.
func durationMapper() kong.Option {
	return kong.TypeMapper(reflect.TypeFor[time.Duration](), kong.MapperFunc(func(ctx *kong.DecodeContext, target reflect.Value) error {
		t, err := ctx.Scan.PopValue("duration")
		if err != nil {
			return err
		}
		s, ok := t.Value.(string)
		if !ok {
			s = fmt.Sprint(t.Value)
		}
		d, err := parseDuration(s)
		if err != nil {
			return err
		}
		target.Set(reflect.ValueOf(d))
		return nil
	}))
}

// parseDuration is durationMapper's reading of one value.
func parseDuration(s string) (time.Duration, error) {
	v := strings.TrimSpace(s)
	var d time.Duration
	if f, err := strconv.ParseFloat(v, 64); err == nil && !strings.ContainsAny(v, "xXpPnN_") {
		// A bare number: seconds. ParseFloat also takes hex, "Inf",
		// "NaN" and underscores, none of which is a time here.
		if f < 0 {
			return 0, fmt.Errorf("%q is negative: give a time of 0 or more, such as 60 (seconds) or 2m", s)
		}
		if f*float64(time.Second) > math.MaxInt64 {
			return 0, fmt.Errorf("%q seconds is too long a time", s)
		}
		d = time.Duration(math.Round(f * float64(time.Second)))
	} else {
		var err error
		if d, err = time.ParseDuration(v); err != nil {
			return 0, fmt.Errorf("%q is not a time: give seconds (60, 2.5) or a number with a unit (90s, 1m30s, 500ms)", s)
		}
		if d < 0 {
			return 0, fmt.Errorf("%q is negative: give a time of 0 or more, such as 60 (seconds) or 2m", s)
		}
	}
	return d, nil
}
