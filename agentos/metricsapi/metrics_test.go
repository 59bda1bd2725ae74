package metricsapi

import (
	"testing"
	"time"
)

func TestMetricsQueryDate(t *testing.T) {
	for _, c := range []struct{ in, want, fault string }{
		{"2025-07-31", "2025-07-31", ""},
		{"2024-02-29", "2024-02-29", ""},
		{"2025-07-31T00:00:00", "2025-07-31", ""},
		{"2025-07-31 00:00:00.000+02:00", "2025-07-31", ""},
		{"0", "1970-01-01", ""},
		{"86400000000", "1972-09-27", ""}, // milliseconds
		{"2023-02-29", "", "date_from_datetime_parsing"},
		{"2025-07-31T00:00:01", "", "date_from_datetime_inexact"},
		{"2025-07-31T00:00:00.5", "", "date_from_datetime_inexact"},
		{"1753920001", "", "date_from_datetime_inexact"},
		{"2025-07-31X", "", "date_from_datetime_parsing"},
		{"2025-07-31T25:00", "", "date_from_datetime_parsing"},
		{"2025-07-31T00:00:00Zjunk", "", "date_from_datetime_parsing"},
		{"20a5-07-31", "", "date_from_datetime_parsing"},
	} {
		d, item := queryDate("starting_date", c.in)
		switch {
		case c.fault == "" && item != nil:
			t.Errorf("%q: rejected %+v", c.in, *item)
		case c.fault == "" && d.Format(time.DateOnly) != c.want:
			t.Errorf("%q = %v, want %s", c.in, d, c.want)
		case c.fault != "" && (item == nil || item.Type != c.fault):
			t.Errorf("%q: got %v %+v, want %s", c.in, d, item, c.fault)
		}
	}
}
