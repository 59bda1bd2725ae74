// Package sqlitero registers a SQLite driver for databases a model may
// query but must not use to reach other files: an authorizer on every
// connection denies ATTACH and DETACH. With URI filenames an ATTACH could
// otherwise open or create any file read-write, even on a connection
// opened with mode=ro, or read another database on the host.
package sqlitero

import (
	"database/sql"
	"fmt"

	"modernc.org/sqlite"
)

// DriverName is the database/sql name of the guarded driver.
const DriverName = "agno-sqlite-guarded"

func init() {
	d := &sqlite.Driver{}
	d.RegisterConnectionHook(func(c sqlite.ExecQuerierContext, _ string) error {
		r, ok := c.(sqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("sqlitero: the SQLite driver cannot install an authorizer on %T", c)
		}
		return r.RegisterAuthorizer(authorize)
	})
	sql.Register(DriverName, d)
}

func authorize(action sqlite.AuthorizerActionCode, _, _, _, _ string) sqlite.AuthorizerReturnCode {
	switch action {
	case sqlite.AuthAttach, sqlite.AuthDetach:
		return sqlite.AuthorizerDeny
	}
	return sqlite.AuthorizerOK
}
