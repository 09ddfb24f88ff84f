// Package abrun runs an A/B job: one scenario for a base side and a new
// side, one repetition at a time, alternating in the seeded random order
// sim/ab.Order gives, on this machine. Each repetition of a side is its own
// `svclab run SCENARIO --repetitions 1` of that side's svclab binary, with
// that side's options and environment, so the sides may differ in anything
// svclab run can vary: the svclab build, --engine, --kube-proxy-version,
// the iptables and nft tools (PATH), --plant-rules. The repetitions of each
// side are then merged into one ordinary run directory (base/ and new/), so
// svclab report, compare and gate read them; sim/ab analyses the pairs.
package abrun
