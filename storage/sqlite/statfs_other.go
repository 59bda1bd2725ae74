//go:build !unix

package sqlite

// statFS knows nothing of the filesystem here: SQLite's code alone
// explains a failed write.
func statFS(string) fsState { return fsState{} }
