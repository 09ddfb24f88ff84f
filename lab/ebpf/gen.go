package ebpf

// The BPF objects and their Go bindings are generated from bpf/svclb.c and
// committed, so nothing but `make bpf` needs clang. The flags here are the
// ones TestObjectsMatchSource recompiles with.
//go:generate go tool bpf2go -cc clang -target bpfel -go-package ebpf svclb bpf/svclb.c -- -O2 -g -Wall -Werror -I/usr/include/x86_64-linux-gnu
