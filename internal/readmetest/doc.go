// Package readmetest holds the test that builds every Go snippet of the
// repository's README.md against the module, so the README cannot drift
// from the API. It has no code of its own.
package readmetest
