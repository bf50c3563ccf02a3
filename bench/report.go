package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// Report is everything one run measured; -json writes it.
type Report struct {
	Device            string             `json:"device"`
	Ordinal           int                `json:"ordinal"`
	ComputeCapability string             `json:"compute_capability"`
	Multiprocessors   int                `json:"multiprocessors"`
	DriverCUDAVersion string             `json:"driver_cuda_version"`
	GoVersion         string             `json:"go_version"`
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
