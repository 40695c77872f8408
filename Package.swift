// swift-tools-version: 6.0
import PackageDescription

// Layers point one way; every arrow below is "depends on", with its reason.
//
// DeckBase: the floor of shared plumbing (the C library imported once for every module above,
//   system calls, files, locks, signals, errno text, the JSON parser and writer, number and
//   text layout, source locations, did-you-mean suggestions). Depends on nothing.
// DeckIntrinsics (C): CPU instructions Swift has no intrinsics for (the SHA extensions), each
//   behind a CPUID check (no I/O). Depends on nothing.
// DeckCore: the pure model and deck rules. No file or process I/O.
// DeckCore -> DeckIntrinsics: the SHA extensions' instructions for SHA-256 (C: Swift has no
//   intrinsics for them); the portable Swift code runs where the CPU lacks them.
// DeckStrategies -> DeckCore: strategies score the model's catalog, history and diners.
// DeckStrategies -> DeckBase: did-you-mean suggestions in its option and strategy errors.
// DeckPlugins -> DeckStrategies: a plugin is one more RankingStrategy, with options and errors
//   (StrategyError.plugin, PluginFault) of the strategy layer.
// DeckPlugins -> DeckCore: the plugin protocol sends catalogs, histories and diners.
// DeckPlugins -> DeckBase: spawning, polling and ending plugin processes; the clock; the shared
//   JSON parser (protocol-line dialect) and the JSON writer for the protocol's lines.
// DeckIO -> DeckCore: it reads files into the model and writes decks out of it.
// DeckIO -> DeckBase: reading files, errno text, the JSON parser and writer, text layout,
//   source locations, did-you-mean suggestions in input errors.
// DeckEvaluation -> DeckIO: offline and off-policy evaluation and stats read logs and snapshots.
// DeckEvaluation -> DeckStrategies: it runs strategies offline, tunes them and scores targets.
// DeckEvaluation -> DeckCore: the model it evaluates.
// DeckEvaluation -> DeckBase: text layout in its messages; the JSON writer for its results'
//   significance object.
// DeckSimulation -> DeckIO: the simulator writes event logs; the sample data and real-data
//   importers read and write catalogs, users and logs.
// DeckSimulation -> DeckStrategies: simulated days run strategies (and the oracle, one more).
// DeckSimulation -> DeckCore: the model it simulates.
// DeckSimulation -> DeckBase: suggestions in simulation config errors; the JSON writer and
//   text layout in sample data.
//   (Not in DeckEvaluation: evaluation needs no simulator, and the simulator no evaluation.)
// DeckReports -> DeckEvaluation: every writer of reports writes evaluation's results (stats
//   reports, comparison reports, tuning results, per-diner tables).
// DeckReports -> DeckIO: the run record that heads every JSON report.
// DeckReports -> DeckCore: dates and dishes in the reports.
// DeckReports -> DeckBase: the JSON writer, run headers and text layout of every report.
//   (Output writers of reports live here, one floor above what they write; the deck and event
//   writers stay in DeckIO beside their readers.)
// DeckPlay -> DeckCore: `menudeck play`'s screen state is a DeckState (the one session model),
//   a Carousel and the swipe rules; it adds keys, effects and a renderer, all pure, and the
//   loop that plays them on a terminal (PlayTerminal.swift).
// DeckPlay -> DeckBase: display widths of East Asian wide characters in the screen's text; the
//   terminal's raw mode, size and input for the loop.
//   (Not in DeckSimulation or DeckEvaluation: the terminal deck needs no strategies, logs or
//   reports, and its tests build without them. The terminal's system calls are DeckBase's; the
//   deck, the log and the command are MenuDeckCLI's and DeckJobs'.)
// DeckJobs -> DeckEvaluation, DeckSimulation, DeckReports, DeckPlugins, DeckIO, DeckStrategies,
//   DeckCore, DeckBase: the run layer. DeckPlugins: it makes the plugin strategies that
//   `--strategy` may name (Strategies.swift).
//   It holds the work a command names (typed requests, loading every kind of input, running,
//   committing a run's outputs together) and wires the layers below for it. Not on
//   DeckCommandLine: a job takes a typed request, never parsed arguments, so it runs (and is
//   tested) without a command line; its errors are `JobError`, its diagnostics a `JobDiagnostics`.
// MenuDeckCLI -> DeckJobs: a command builds a request from its arguments and calls its job.
// MenuDeckCLI -> DeckPlay: `play` drives the pure screen from the terminal.
// MenuDeckCLI -> DeckReports, DeckEvaluation, DeckSimulation, DeckIO, DeckStrategies, DeckCore:
//   the types of the requests and of the summaries the commands print; every layer's
//   typed errors become exit codes here.
// MenuDeckCLI -> DeckBase: output files, locks, signals, errno text, suggestions, the JSON writer.
// DeckCommandLine -> DeckBase: did-you-mean for options and commands, errno text for streams,
//   the JSON writer for `--log-format json` lines.
//   The argument parser, help, streams, diagnostics and exit codes: no menudeck command in it,
//   so its tests build without the CLI.
// MenuDeckCLI -> DeckCommandLine: every command is a CommandSpec with typed option keys.
// menudeck -> MenuDeckCLI: the executable is only its entry point.
// menudeck-bench and the test targets -> the modules they measure or test (and those whose
//   types they build inputs with). DeckTestSupport: the stats and simulation tests' shared
//   fixtures (a catalog, hand-computed swipes and report), built only for the test targets.
let package = Package(
  name: "menudeck",
  products: [
    .executable(name: "menudeck", targets: ["menudeck"]),
    .library(name: "DeckCore", targets: ["DeckCore"]),
  ],
  targets: [
    .target(name: "DeckBase"),
    .target(name: "DeckIntrinsics"),
    .target(name: "DeckCore", dependencies: ["DeckIntrinsics"]),
    .target(name: "DeckStrategies", dependencies: ["DeckBase", "DeckCore"]),
    .target(name: "DeckPlugins", dependencies: ["DeckBase", "DeckCore", "DeckStrategies"]),
    .target(name: "DeckIO", dependencies: ["DeckBase", "DeckCore"]),
    .target(
      name: "DeckEvaluation", dependencies: ["DeckBase", "DeckCore", "DeckStrategies", "DeckIO"]),
    .target(
      name: "DeckSimulation", dependencies: ["DeckBase", "DeckCore", "DeckStrategies", "DeckIO"]),
    .target(
      name: "DeckReports", dependencies: ["DeckBase", "DeckCore", "DeckIO", "DeckEvaluation"]),
    .target(name: "DeckCommandLine", dependencies: ["DeckBase"]),
    .target(name: "DeckPlay", dependencies: ["DeckBase", "DeckCore"]),
    .target(
      name: "DeckJobs",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckPlugins", "DeckIO", "DeckEvaluation",
        "DeckSimulation", "DeckReports",
      ]),
    .target(
      name: "MenuDeckCLI",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckEvaluation", "DeckSimulation",
        "DeckReports", "DeckJobs", "DeckCommandLine", "DeckPlay",
      ]),
    .executableTarget(name: "menudeck", dependencies: ["MenuDeckCLI"]),
    .executableTarget(
      name: "menudeck-bench",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckPlugins", "DeckIO", "DeckEvaluation",
        "DeckSimulation", "DeckReports", "DeckJobs", "DeckCommandLine", "MenuDeckCLI",
      ],
      path: "Benchmarks/menudeck-bench"),
    .testTarget(name: "DeckBaseTests", dependencies: ["DeckBase"]),
    .testTarget(name: "DeckCoreTests", dependencies: ["DeckCore"]),
    .testTarget(
      name: "DeckStrategiesTests", dependencies: ["DeckBase", "DeckCore", "DeckStrategies"]),
    .testTarget(
      name: "DeckPluginsTests",
      dependencies: ["DeckBase", "DeckCore", "DeckStrategies", "DeckPlugins"]),
    .testTarget(
      name: "DeckIOTests", dependencies: ["DeckBase", "DeckCore", "DeckStrategies", "DeckIO"]),
    .target(
      name: "DeckTestSupport", dependencies: ["DeckCore", "DeckEvaluation", "DeckSimulation"],
      path: "Tests/DeckTestSupport"),
    .testTarget(
      name: "DeckEvaluationTests",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckEvaluation", "DeckSimulation",
        "DeckReports", "DeckTestSupport",
      ]),
    .testTarget(
      name: "DeckSimulationTests",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckEvaluation", "DeckSimulation",
        "DeckTestSupport",
      ]),
    .testTarget(
      name: "DeckReportsTests",
      dependencies: [
        "DeckBase", "DeckCore", "DeckIO", "DeckEvaluation", "DeckReports", "DeckTestSupport",
      ]),
    .testTarget(name: "DeckCommandLineTests", dependencies: ["DeckBase", "DeckCommandLine"]),
    .testTarget(
      name: "DeckPlayTests", dependencies: ["DeckBase", "DeckCore", "DeckPlay"], exclude: ["Golden"]
    ),
    .testTarget(
      name: "DeckJobsTests",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckPlugins", "DeckIO", "DeckEvaluation",
        "DeckSimulation", "DeckReports", "DeckJobs",
      ]),
    .testTarget(
      name: "MenuDeckCLITests",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckPlugins", "DeckIO", "DeckEvaluation",
        "DeckSimulation", "DeckReports", "DeckJobs", "DeckCommandLine", "DeckPlay", "MenuDeckCLI",
      ],
      exclude: ["Golden"]),
  ]
)
