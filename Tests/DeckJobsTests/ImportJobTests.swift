import DeckBase
import DeckIO
import DeckSimulation
import Foundation
import Testing

@testable import DeckJobs

/// `ImportJob` called directly with a typed request, on a small data set shaped like MovieLens.
@Suite struct ImportJobTests {
  static func movieLens(in dir: JobTempDir) throws {
    try FileManager.default.createDirectory(
      atPath: dir.file("ml"), withIntermediateDirectories: true)
    try dir.write(
      "ml/movies.csv",
      """
      movieId,title,genres
      1,Toy Story (1995),Adventure|Animation|Children|Comedy|Fantasy
      2,Heat (1995),Action|Crime|Thriller

      """)
    try dir.write(
      "ml/ratings.csv",
      """
      userId,movieId,rating,timestamp
      1,1,4.0,964982703
      1,2,2.0,964981247
      2,1,3.0,964983815

      """)
  }

  static func io(in dir: JobTempDir) -> JobIO {
    var io = JobTestSupport.io()
    io.currentDirectory = dir.path
    return io
  }

  @Test func theCatalogAndItsConfigAreWrittenTogether() throws {
    let dir = try JobTempDir()
    try Self.movieLens(in: dir)
    let request = ImportRequest(
      dataSet: .movielens, directory: "ml", out: "out", outKey: OutputKey("--out"))
    let outcome = try ImportJob.run(request, Self.io(in: dir))
    #expect(outcome.imported.items.count == 2)
    #expect(
      outcome.counts.log.right == 1 && outcome.counts.log.left == 1
        && outcome.counts.log.neutral == 1)
    #expect(try dir.names() == ["ml", "out"])
    let catalog = String(decoding: try dir.bytes("out/catalog.csv"), as: UTF8.self)
    #expect(catalog.hasPrefix("id,name,category,"))
    let config = String(decoding: try dir.bytes("out/menudeck.json"), as: UTF8.self)
    #expect(config.contains("\"history\": \"../ml/ratings.csv\""))
    #expect(config.contains("\"catalog\": \"catalog.csv\""))
  }

  @Test func aDataSetWithoutItsRatingsWritesNothing() throws {
    let dir = try JobTempDir()
    try Self.movieLens(in: dir)
    try FileManager.default.removeItem(atPath: dir.file("ml/ratings.csv"))
    let request = ImportRequest(
      dataSet: .movielens, directory: "ml", out: "out", outKey: OutputKey("--out"))
    #expect(throws: (any Error).self) { try ImportJob.run(request, Self.io(in: dir)) }
    #expect(!FileManager.default.fileExists(atPath: dir.file("out/catalog.csv")))
    #expect(!FileManager.default.fileExists(atPath: dir.file("out/menudeck.json")))
  }

  @Test func relativePathsClimbOutOfTheOutputDirectory() {
    #expect(ImportJob.relativePath(from: "/a/b/out", to: "/a/b/ml/r.csv") == "../ml/r.csv")
    #expect(ImportJob.relativePath(from: "/x", to: "/y/r.csv") == "/y/r.csv")
  }
}
