import DeckBase
import DeckCore
import DeckIO
import DeckSimulation

/// `menudeck import DATASET DIR --out OUT`: a public ratings data set made into a catalog and a
/// config that reads its ratings log in place.
package struct ImportRequest: Sendable {
  package var dataSet: RealDataSet
  /// The data set's directory, as given.
  package var directory: String
  /// The directory of `catalog.csv` and `menudeck.json` (created when missing), as given, and
  /// the key its files are written under.
  package var out: String
  package var outKey: OutputKey
  /// `--wait`, and the directory made; the job adds the two files and the data set's files.
  package var outputs: OutputPlan

  package init(
    dataSet: RealDataSet, directory: String, out: String, outKey: OutputKey,
    plan: OutputPlan = OutputPlan()
  ) {
    self.dataSet = dataSet
    self.directory = directory
    self.out = out
    self.outKey = outKey
    outputs = plan
    outputs.createDirectories = [outKey]
  }
}

/// Runs an `ImportRequest`: read the data set's items into a catalog, count its ratings as
/// swipes, and write the catalog and its config together.
package enum ImportJob {
  /// The names of the files written in the output directory.
  package static let catalogName = "catalog.csv"
  package static let configName = "menudeck.json"

  package struct Outcome {
    package var imported: ImportedCatalog
    package var counts: RatingCounts
  }

  package static func run(_ request: ImportRequest, _ io: JobIO) throws -> Outcome {
    let (dataSet, dir, out, key) = (request.dataSet, request.directory, request.out, request.outKey)
    let catalogPath = FileSystem.join(out, catalogName)
    let configPath = FileSystem.join(out, configName)
    var plan = request.outputs.writing([.init(key, catalogPath), .init(key, configPath)])
    plan.inputs += dataSet.inputFiles.map {
      RunOutputs.File("the data set file", FileSystem.join(dir, $0))
    }
    let outputs = try RunOutputs(plan, io: io)
    defer { outputs.abort() }

    let imported = try RealData.importCatalog(
      dataSet, directory: Paths.open(dir, io), shownAs: dir)
    let catalog: Catalog
    do {
      catalog = try Catalog(items: imported.items)
    } catch {
      throw JobError(.dataError, "\(dir): \(error)")
    }
    let ratingsPath = FileSystem.join(dir, dataSet.ratingsFile)
    let counts = try Paths.using(ratingsPath, io) { opened throws(DeckIOError) in
      try RealData.countRatings(dataSet, path: opened, catalog: catalog)
    }

    let history = relativePath(from: io.resolvePath(out), to: io.resolvePath(ratingsPath))
    try outputs.write(Array(imported.catalogCSV.utf8), to: key, path: catalogPath)
    try outputs.write(
      Array(config(dataSet, catalog: catalogName, history: history).utf8), to: key,
      path: configPath)
    try outputs.commit()
    return Outcome(imported: imported, counts: counts)
  }

  /// The config written beside the catalog: paths relative to it.
  package static func config(_ dataSet: RealDataSet, catalog: String, history: String) -> String {
    let m = dataSet.mapping
    return ConfigFragment.configFile { w in
      w.layout("\n  ")
      w.field("catalog", catalog)
      w.layout("\n  ")
      w.field("history", history)
      w.layout("\n  ")
      w.key("columns")
      w.beginObject()
      w.layout("\n    ")
      w.key("map")
      w.beginObject()
      for f in ColumnMapping.Field.allCases {
        if let column = m.columns[f] { w.field(f.rawValue, column) }
      }
      w.endObject()
      w.layout("\n    ")
      w.field("right", m.right!.description)
      w.layout("\n    ")
      w.field("left", m.left!.description)
      w.layout("\n  ")
      w.endObject()
    }
  }

  /// `target` relative to the directory `base` (both absolute); `target` itself when they share
  /// nothing but the root.
  package static func relativePath(from base: String, to target: String) -> String {
    let b = Paths.normalize(base).split(separator: "/")
    let t = Paths.normalize(target).split(separator: "/")
    var common = 0
    while common < b.count && common < t.count && b[common] == t[common] { common += 1 }
    if common == 0 { return Paths.normalize(target) }
    let up = Array(repeating: "..", count: b.count - common)
    return (up + t[common...].map(String.init)).joined(separator: "/")
  }
}
