package schedule

import (
	"errors"
	"testing"
	"time"
)

func TestValidateCron(t *testing.T) {
	for _, ok := range []string{"* * * * *", "*/5 * * * *", "0 9 * * *", "0 0 * * 1", "0 0 1 * *", "30 4 1,15 * 1-5",
		"0 0 * * MON", "0 12 * JAN,JUL *", "@daily", "@hourly", "@weekly", "@monthly", "@yearly", " 0 3 * * * "} {
		if err := ValidateCron(ok); err != nil {
			t.Errorf("ValidateCron(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", "invalid", "* * * *", "60 * * * *", "* 24 * * *", "* * 32 * *", "* * * 13 *",
		"* * * * 8", "@every 5m", "TZ=UTC * * * * *", "CRON_TZ=UTC 0 3 * * *", "0 0 30 2 *", "a b c d e"} {
		if err := ValidateCron(bad); !errors.Is(err, ErrInvalidCron) {
			t.Errorf("ValidateCron(%q) = %v, want ErrInvalidCron", bad, err)
		}
	}
}

func TestLoadTimezone(t *testing.T) {
	for _, ok := range []string{"UTC", "America/New_York", "Europe/Paris", "Asia/Tokyo"} {
		if _, err := LoadTimezone(ok); err != nil {
			t.Errorf("LoadTimezone(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "Local", "Invalid/Zone", "Mars/Olympus", "../etc/passwd"} {
		if _, err := LoadTimezone(bad); !errors.Is(err, ErrInvalidTimezone) {
			t.Errorf("LoadTimezone(%q) = %v, want ErrInvalidTimezone", bad, err)
		}
	}
}

func TestNextRun(t *testing.T) {
	base := time.Date(2026, 3, 10, 10, 30, 15, 0, time.UTC)
	for _, tc := range []struct {
		expr, tz string
		want     time.Time
	}{
		{"* * * * *", "UTC", time.Date(2026, 3, 10, 10, 31, 0, 0, time.UTC)},
		{"0 3 * * *", "UTC", time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC)},
		// 03:00 in New York (EDT from 8 March 2026, UTC-4) is 07:00 UTC.
		{"0 3 * * *", "America/New_York", time.Date(2026, 3, 11, 7, 0, 0, 0, time.UTC)},
		// 12:00 in Tokyo (UTC+9) is 03:00 UTC: already past today.
		{"0 12 * * *", "Asia/Tokyo", time.Date(2026, 3, 11, 3, 0, 0, 0, time.UTC)},
		{"@hourly", "UTC", time.Date(2026, 3, 10, 11, 0, 0, 0, time.UTC)},
	} {
		got, err := NextRun(tc.expr, tc.tz, base)
		if err != nil || got != tc.want.Unix() {
			t.Errorf("NextRun(%q, %q) = %s, %v; want %s", tc.expr, tc.tz, time.Unix(got, 0).UTC(), err, tc.want)
		}
	}
	// On a firing time the next one is strictly later.
	on := time.Date(2026, 3, 10, 10, 31, 0, 0, time.UTC)
	if got, _ := NextRun("* * * * *", "UTC", on); got != on.Unix()+60 {
		t.Errorf("NextRun on a firing time = %s", time.Unix(got, 0).UTC())
	}
	if _, err := NextRun("* * * * *", "Nowhere/City", base); !errors.Is(err, ErrInvalidTimezone) {
		t.Errorf("bad timezone: %v", err)
	}
	if _, err := NextRun("bad", "UTC", base); !errors.Is(err, ErrInvalidCron) {
		t.Errorf("bad cron: %v", err)
	}
}
