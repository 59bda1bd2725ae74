package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Standard five-field cron (minute hour day-of-month month day-of-week)
// and the @yearly … @hourly shorthands, as croniter (agno's validator)
// reads them.
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// ErrInvalidCron and ErrInvalidTimezone mark what ValidateCron and
// LoadTimezone refuse.
var (
	ErrInvalidCron     = errors.New("invalid cron expression")
	ErrInvalidTimezone = errors.New("invalid timezone")
)

// parseCron parses expr, refusing what croniter would not read: robfig's
// @every intervals and TZ= prefixes, and an expression that never fires
// (day 30 of February).
func parseCron(expr string) (cron.Schedule, error) {
	e := strings.TrimSpace(expr)
	if e == "" || strings.HasPrefix(e, "@every") || strings.HasPrefix(e, "TZ=") || strings.HasPrefix(e, "CRON_TZ=") {
		return nil, fmt.Errorf("%w %q: give five fields (minute hour day month weekday) such as \"0 3 * * *\"", ErrInvalidCron, expr)
	}
	s, err := parser.Parse(e)
	if err != nil {
		return nil, fmt.Errorf("%w %q: %v", ErrInvalidCron, expr, err)
	}
	if s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, fmt.Errorf("%w %q: it never fires", ErrInvalidCron, expr)
	}
	return s, nil
}

// ValidateCron checks a cron expression (agno's validate_cron_expr).
func ValidateCron(expr string) error {
	_, err := parseCron(expr)
	return err
}

// LoadTimezone resolves an IANA timezone name (agno's validate_timezone):
// "UTC", "America/New_York". "" and "Local" are refused: a schedule names
// its zone.
func LoadTimezone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("%w %q: give an IANA name such as \"UTC\" or \"Europe/Paris\"", ErrInvalidTimezone, name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("%w %q: give an IANA name such as \"UTC\" or \"Europe/Paris\"", ErrInvalidTimezone, name)
	}
	return loc, nil
}

// NextRun is the first time expr fires after after, read in timezone tz,
// as epoch seconds; never earlier than after+1s (agno's compute_next_run
// with its monotonicity guard).
func NextRun(expr, tz string, after time.Time) (int64, error) {
	s, err := parseCron(expr)
	if err != nil {
		return 0, err
	}
	loc, err := LoadTimezone(tz)
	if err != nil {
		return 0, err
	}
	next := s.Next(after.In(loc))
	if next.IsZero() {
		return 0, fmt.Errorf("%w %q: no time after %s", ErrInvalidCron, expr, after.UTC().Format(time.RFC3339))
	}
	return max(next.Unix(), after.Unix()+1), nil
}
