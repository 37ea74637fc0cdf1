// Package examples holds page_pool captures for the replay: a veth pool
// recorded on this project's 6.18 test machine (the tracefs trace file
// and perf script), and the model's destroy run printed in each era's
// format by each tool (the files named synthetic-*, written by
// cmd/ppsim's TestReplay_SyntheticFixturesInEveryFormatAgree
// -update-fixtures). The page offers them (app/session embeds FS); the
// engine's, the CLI's and the live tests read them.
package examples

import "embed"

// FS holds the captures, *.txt, named KIND-ERA-TOOL.
//
//go:embed *.txt
var FS embed.FS
