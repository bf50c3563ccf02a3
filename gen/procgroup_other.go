//go:build !linux

package gen

import "os/exec"

// killGroupOnCancel leaves cmd as exec.CommandContext made it: cancelling
// the context kills nvcc itself. (On Linux it kills nvcc's children too.)
func killGroupOnCancel(*exec.Cmd) {}
