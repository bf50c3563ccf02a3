package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// Report is everything one run measured; -json writes it.
type Report struct {
	Device            string             `json:"device"`
	Ordinal           int                `json:"ordinal"`
	ComputeCapability string             `json:"compute_capability"`
	Multiprocessors   int                `json:"multiprocessors"`
	DriverCUDAVersion string             `json:"driver_cuda_version"`
	GoVersion         string             `json:"go_version"`
	Commit            string             `json:"commit,omitempty"` // the bench binary's, from its build info
	Start             string             `json:"start"`
	Repeats           int                `json:"repeats"`
	Warmup            int                `json:"warmup"`
	Ceilings          *Ceilings          `json:"ceilings"`
	Checks            []Check            `json:"checks"`
	Rows              []Row              `json:"rows"`
	Calls             *Calls             `json:"calls,omitempty"`
	Results           []ResultsRow       `json:"results,omitempty"`
	JIT               []JITRow           `json:"jit,omitempty"`
	Models            []ModelRow         `json:"models,omitempty"`
	Packages          []PackageRow       `json:"packages,omitempty"`
	Mixing            []MixingRow        `json:"mixing,omitempty"`
	MixingAutoBurnin  []MixingAutoBurnin `json:"mixing_auto_burnin,omitempty"`
	Skipped           []string           `json:"skipped,omitempty"`
}

func writeJSON(path string, r *Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing -json file: %w", err)
	}
	return nil
}

// readJSON reads a report that -json wrote (for -from).
func readJSON(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("-from: %w", err)
	}
	var r Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("-from %s: not a gibbsbench -json report: %w", path, err)
	}
	return &r, nil
}

// readReports reads the -json files of -from as one report: the first
// file's header (device, commit, start), every file's rows.
func readReports(paths []string) (*Report, error) {
	var all *Report
	for _, p := range paths {
		r, err := readJSON(strings.TrimSpace(p))
		if err != nil {
			return nil, err
		}
		if all == nil {
			all = r
			continue
		}
		all.Rows = append(all.Rows, r.Rows...)
		all.Packages = append(all.Packages, r.Packages...)
		all.Mixing = append(all.Mixing, r.Mixing...)
	}
	return all, nil
}

// buildCommit is the VCS revision the binary was built from (12 hex
// digits, "+dirty" for a modified tree), or "" when the build recorded
// none.
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return ""
	}
	return rev[:min(12, len(rev))] + dirty
}
