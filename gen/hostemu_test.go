package gen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gibbsgen/gibbsgen/gibbsrt"
	"github.com/gibbsgen/gibbsgen/internal/kernels"
)

// The host emulation of a generated module (testdata/hostemu/cuda_host.h):
// the module's CUDA source compiled as C++ with a driver generated from the
// kernel table, run thread by thread on the CPU. Tests launch its kernels
// through emuDevice and compare what they compute with gibbsrt's twin.

// emuModule is a module's source compiled for the host.
type emuModule struct {
	bin string
	dt  kernels.DType
}

// buildEmu renders s's module (its fatbin's source), writes a driver for
// its kernels and compiles both with g++. It skips the test without g++.
func buildEmu(t testing.TB, s Spec) *emuModule {
	t.Helper()
	m, err := resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	return buildEmuImage(t, s, m.fatbin)
}

// buildEmuImage is buildEmu for the source of an image of s's kernels:
// the fatbin's, or one of PTX kernels that the emulation can run (those
// whose markers it reads from the tables emuTables names).
func buildEmuImage(t testing.TB, s Spec, img image) *emuModule {
	t.Helper()
	cxx, err := exec.LookPath("g++")
	if err != nil {
		t.Skip("the host emulation needs g++")
	}
	m, err := resolve(s)
	if err != nil {
		t.Fatal(err)
	}
	src, err := m.renderImage("module.cu", img)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "module.cu"), src.Text, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "driver.cc"), emuDriver(s, img), 0o644); err != nil {
		t.Fatal(err)
	}
	inc, err := filepath.Abs(filepath.Join("testdata", "hostemu"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "emu")
	cmd := exec.Command(cxx, "-std=c++20", "-O1", "-ffp-contract=off", "-DGG_HOST_EMU",
		"-Wno-unknown-pragmas", "-I", inc, "-I", dir, "-o", bin, filepath.Join(dir, "driver.cc"))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("g++ on the module for dim %d: %v\n%s", s.Dim, err, out)
	}
	return &emuModule{bin: bin, dt: s.dtype()}
}

// emuTables are the tables from which the emulation reads a PTX kernel's
// markers (its template block declares them under GG_HOST_EMU).
var emuTables = map[string][]string{
	"gibbs_exact_model": {"gibbs_emu_exact_n", "gibbs_emu_exact_c"},
	"gibbs_sweep_model": {"gibbs_emu_model_w", "gibbs_emu_model_o", "gibbs_emu_model_s", "gibbs_emu_model_k", "gibbs_emu_model_staged"},
}

// emuDriver is the C++ main of the emulation: it reads commands from stdin
// (emuDevice writes them) and calls the image's kernels by name, with
// arguments decoded by the table's parameter kinds.
func emuDriver(s Spec, img image) []byte {
	var b strings.Builder
	b.WriteString(`#include "cuda_host.h"
#include "module.cu"
#include <cstdio>
#include <map>
#include <string>

static bool rd(void* p, size_t n) { return fread(p, 1, n, stdin) == n; }
template <class T> static T get() { T v{}; if (!rd(&v, sizeof v)) exit(3); return v; }
static std::string name() { std::string s(get<uint16_t>(), '\0'); if (!rd(s.data(), s.size())) exit(3); return s; }

int main() {
  std::map<uint32_t, std::vector<char>> buf;
  auto ptr = [&](uint64_t id) -> void* { return id == 0 ? nullptr : buf.at((uint32_t)id).data(); };
  for (;;) {
    switch (get<uint8_t>()) {
    case 0: return 0;
    case 1: {  // a module table
      const std::string n = name();
      const uint64_t bytes = get<uint64_t>();
      void* dst = nullptr;
      size_t size = 0;
`)
	var syms []string
	for _, sym := range img.symbols {
		syms = append(syms, sym.Name)
	}
	for _, k := range img.kernels {
		syms = append(syms, emuTables[k.Name]...)
	}
	for _, sym := range syms {
		fmt.Fprintf(&b, "      if (n == %q) { dst = (void*)%s; size = sizeof %s; }\n", sym, sym, sym)
	}
	b.WriteString(`      if (dst == nullptr || size != bytes || !rd(dst, bytes)) return 4;
      break;
    }
    case 2: {  // alloc
      const uint32_t id = get<uint32_t>();
      buf[id].assign(get<uint64_t>(), 0);
      break;
    }
    case 3: {  // write
      auto& v = buf.at(get<uint32_t>());
      if (get<uint64_t>() != v.size() || !rd(v.data(), v.size())) return 5;
      break;
    }
    case 4: {  // launch
      const std::string n = name();
      const unsigned blocks = get<uint32_t>(), threads = get<uint32_t>();
      gg_emu_dynamic_shared.assign(get<uint32_t>(), 0);
      std::vector<uint64_t> a(get<uint32_t>());
      for (auto& v : a) v = get<uint64_t>();
`)
	for _, k := range img.kernels {
		for _, e := range definedEntries(k) {
			var args []string
			for i, p := range e.params {
				switch p.Kind.Go() {
				case kernels.GoPointer:
					args = append(args, fmt.Sprintf("(%s)ptr(a[%d])", p.Kind.CType(s.dtype()), i))
				default:
					args = append(args, fmt.Sprintf("(%s)a[%d]", p.Kind.CType(s.dtype()), i))
				}
			}
			fmt.Fprintf(&b, "      if (n == %q && a.size() == %d) { gg_emu_launch(blocks, threads, [&] { %s(%s); }); break; }\n",
				e.name, len(e.params), e.name, strings.Join(args, ", "))
		}
	}
	b.WriteString(`      return 6;
    }
    case 5: {  // read
      auto& v = buf.at(get<uint32_t>());
      if (fwrite(v.data(), 1, v.size(), stdout) != v.size()) return 7;
      break;
    }
    default:
      return 8;
    }
  }
}
`)
	return []byte(b.String())
}

// emuDevice records commands for an emuModule; Run executes them and
// returns what the reads read, in order.
type emuDevice struct {
	m     *emuModule
	cmds  bytes.Buffer
	next  uint32
	reads []emuBuf
}

// emuBuf is a device buffer of the emulation: its id and size.
type emuBuf struct {
	id    uint32
	bytes uint64
}

func (d *emuDevice) put(vs ...any) {
	for _, v := range vs {
		if s, ok := v.(string); ok {
			binary.Write(&d.cmds, binary.LittleEndian, uint16(len(s)))
			d.cmds.WriteString(s)
			continue
		}
		binary.Write(&d.cmds, binary.LittleEndian, v)
	}
}

// Symbol fills the module table name with data (a slice of fixed-size values).
func (d *emuDevice) Symbol(name string, data any) {
	d.put(uint8(1), name, uint64(binary.Size(data)), data)
}

// Upload allocates a buffer holding data.
func (d *emuDevice) Upload(data any) emuBuf {
	b := d.Alloc(uint64(binary.Size(data)))
	d.put(uint8(3), b.id, b.bytes, data)
	return b
}

// Alloc allocates a zeroed buffer of bytes bytes.
func (d *emuDevice) Alloc(bytes uint64) emuBuf {
	d.next++
	d.put(uint8(2), d.next, bytes)
	return emuBuf{d.next, bytes}
}

// Launch runs kernel name over blocks blocks of threads threads. Each
// argument is an emuBuf (or nil for a null pointer), a uint64 or a uint32,
// as the table says.
func (d *emuDevice) Launch(name string, blocks, threads int, args ...any) {
	d.LaunchShared(name, blocks, threads, 0, args...)
}

// LaunchShared is Launch with shared bytes of dynamic shared memory.
func (d *emuDevice) LaunchShared(name string, blocks, threads, shared int, args ...any) {
	d.put(uint8(4), name, uint32(blocks), uint32(threads), uint32(shared), uint32(len(args)))
	for _, a := range args {
		switch v := a.(type) {
		case emuBuf:
			d.put(uint64(v.id))
		case nil:
			d.put(uint64(0))
		case uint64:
			d.put(v)
		case uint32:
			d.put(uint64(v))
		default:
			panic(fmt.Sprintf("emuDevice.Launch: argument of type %T", a))
		}
	}
}

// Read reads buffer b back when Run runs.
func (d *emuDevice) Read(b emuBuf) {
	d.put(uint8(5), b.id)
	d.reads = append(d.reads, b)
}

// Run executes the commands and returns each read's bytes.
func (d *emuDevice) Run(t testing.TB) [][]byte {
	t.Helper()
	d.put(uint8(0))
	cmd := exec.Command(d.m.bin)
	cmd.Stdin = &d.cmds
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("host emulation: %v\n%s", err, stderr.String())
	}
	var res [][]byte
	data := out.Bytes()
	for _, r := range d.reads {
		if uint64(len(data)) < r.bytes {
			t.Fatalf("host emulation wrote %d bytes, want %d more", len(data), r.bytes)
		}
		res = append(res, data[:r.bytes])
		data = data[r.bytes:]
	}
	return res
}

// decode decodes little-endian values of T.
func decode[T gibbsrt.Float](b []byte) []T {
	var z T
	if _, ok := any(z).(float32); ok {
		out := make([]T, len(b)/4)
		for i := range out {
			out[i] = T(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
		}
		return out
	}
	out := make([]T, len(b)/8)
	for i := range out {
		out[i] = T(math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])))
	}
	return out
}
