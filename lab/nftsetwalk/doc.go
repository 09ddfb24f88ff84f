// Package nftsetwalk measures, on this machine, what one step of each of
// the kernel's two list walks per anonymous set costs while nft loads a
// table: the work that makes nftables' full syncs of Services with two or
// more endpoints grow with the square of their numgen maps
// (sim/cost.AnonymousSetWork: the naming walk over the table's sets and
// the binding walk over the transaction's commit list).
//
// Both are timed as the difference of two transactions' CPU (nft's user
// and system time: the kernel does the walks in nft's send) in a
// namespace of the run's, on svclab's own nftables ruleset (sim/route's
// rendering) of synthetic Services:
//   - naming, at a table of A sets: AddedSets anonymous maps added to the
//     ruleset of A two-endpoint Services (a numgen map each), less the
//     same added to A one-endpoint Services' (none), over AddedSets·A
//     steps; each ruleset is built once, in transactions of a few thousand
//     lines, in a namespace of its own. The step is timed warm: a full
//     load's set-list steps follow binding walks that empty the caches
//     and cost several times as much (sim/cost's coldFactor bounds them);
//   - binding, at a commit list of T entries: the ruleset of one-endpoint
//     Services loaded with AddedSets anonymous maps at its end, in one
//     transaction, less the ruleset alone and the maps' own naming, over
//     the binding steps the maps made (about AddedSets·T). The list's
//     entries lie among the rules, chains and elements the transaction
//     allocates, as a full sync's do, so the step costs what it costs
//     once the list outgrows the caches: about 10 ns cached, several
//     times that beyond.
//
// The planner prices a payload's steps with them (sim/cost).
package nftsetwalk
