//go:build !linux

package emulatortest

import "syscall"

// sysProcAttr: outside Linux there is no parent-death signal; Stop (from
// Main) ends the emulator.
func sysProcAttr() *syscall.SysProcAttr { return nil }
