// swift-tools-version: 6.0
import PackageDescription

// Layers point one way:
// DeckCore <- DeckStrategies <- DeckIO <- DeckLab <- MenuDeckCLI <- menudeck
// DeckBase (system calls, temporary files, locks, signals) sits below the floors that touch
// files or processes: DeckStrategies (the plugin host) and DeckIO. DeckCore stays free of I/O.
let package = Package(
  name: "menudeck",
  products: [
    .executable(name: "menudeck", targets: ["menudeck"]),
    .library(name: "DeckCore", targets: ["DeckCore"]),
  ],
  targets: [
    .target(name: "DeckBase"),
    .target(name: "DeckCore"),
    .target(name: "DeckStrategies", dependencies: ["DeckBase", "DeckCore"]),
    .target(name: "DeckIO", dependencies: ["DeckBase", "DeckCore", "DeckStrategies"]),
    .target(name: "DeckLab", dependencies: ["DeckCore", "DeckStrategies", "DeckIO"]),
    // The argument parser, help, streams and exit codes: no menudeck command in it, so its tests
    // build without the CLI. DeckStrategies only for closestMatch (did-you-mean).
    .target(name: "DeckCommandLine", dependencies: ["DeckStrategies"]),
    .target(
      name: "MenuDeckCLI",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckLab", "DeckCommandLine",
      ]),
    .executableTarget(name: "menudeck", dependencies: ["MenuDeckCLI"]),
    .executableTarget(
      name: "menudeck-bench",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckLab", "DeckCommandLine",
        "MenuDeckCLI",
      ],
      path: "Benchmarks/menudeck-bench"),
    .testTarget(name: "DeckBaseTests", dependencies: ["DeckBase"]),
    .testTarget(name: "DeckCoreTests", dependencies: ["DeckCore"]),
    .testTarget(
      name: "DeckStrategiesTests", dependencies: ["DeckBase", "DeckCore", "DeckStrategies"]),
    .testTarget(name: "DeckIOTests", dependencies: ["DeckCore", "DeckStrategies", "DeckIO"]),
    .testTarget(name: "DeckLabTests", dependencies: ["DeckCore", "DeckStrategies", "DeckIO", "DeckLab"]),
    .testTarget(name: "DeckCommandLineTests", dependencies: ["DeckCommandLine"]),
    .testTarget(
      name: "MenuDeckCLITests",
      dependencies: [
        "DeckBase", "DeckCore", "DeckStrategies", "DeckIO", "DeckLab", "DeckCommandLine",
        "MenuDeckCLI",
      ],
      exclude: ["Golden"]),
  ]
)
