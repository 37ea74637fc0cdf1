// Package diagnose reads the page_pool counters people paste — `ethtool -S`
// output, hand-made tables of ethtool counters, the netdev netlink family's
// `page-pool-stats-get` and `page-pool-get` dumps as ynl prints them (Python
// literals or --output-json), and `ynltool page-pool stats` (plain, -j,
// group-by pp) — and says what they show: what each counter counts and where
// net/core/page_pool.c increments it, the ratios that matter, the rates
// between two snapshots, the model's scenarios × drivers × eras whose counter
// shape is nearest (found by running the model through engine/lab, once per
// process), and what to look at next.
//
// It sits above engine/lab (diagnose → lab → …) and reads runs only through
// lab's API.
package diagnose
