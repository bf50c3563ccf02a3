// The developer tools that make test runs, pinned in a module of their own:
// go tool -modfile=tools/go.mod staticcheck ./... (from the repository root).
// staticcheck 2026.2 needs Go 1.26; kept out of the main go.mod, neither it
// nor its requirements raise the go line (1.24.0) that a module using
// gibbsgen inherits.
module github.com/gibbsgen/gibbsgen/tools

go 1.26.0

tool honnef.co/go/tools/cmd/staticcheck

require (
	github.com/BurntSushi/toml v1.5.0 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/mod v0.41.0 // indirect
	golang.org/x/sync v0.23.0 // indirect
	golang.org/x/tools v0.51.0 // indirect
	honnef.co/go/tools v0.8.2 // indirect
)
