// Command dbsize prints how many bytes an AgentOS SQLite database holds
// in run rows, events and blobs (bench/upload-rss.sh).
package main

import (
	"database/sql"
	"fmt"
	"os"

	_ "modernc.org/sqlite"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: dbsize AGNO.DB")
		os.Exit(2)
	}
	db, err := sql.Open("sqlite", os.Args[1]+"?_pragma=query_only(1)")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer db.Close()
	var out string
	for _, q := range []struct{ name, sql string }{
		{"largest run row", `SELECT COALESCE(MAX(LENGTH(data)), 0) FROM agno_runs`},
		{"events", `SELECT COALESCE(SUM(LENGTH(data)), 0) FROM agno_run_events`},
		{"blobs", `SELECT COALESCE(SUM(LENGTH(data)), 0) FROM agno_blobs`},
	} {
		var n int64
		if err := db.QueryRow(q.sql).Scan(&n); err != nil {
			n = -1 // the table does not exist in this build
		}
		out += fmt.Sprintf("%s %d bytes; ", q.name, n)
	}
	fmt.Println(out)
}
