import DeckCommandLine
import DeckIO
import Foundation
import Testing

@testable import MenuDeckCLI

/// `menudeck import movielens|uci` and reading foreign logs with `--columns`/`--right`/`--left`,
/// end to end through `run`, on small fixtures shaped like the real data sets.
@Suite struct CLIImportTests {
  static let movies = """
    movieId,title,genres
    1,Toy Story (1995),Adventure|Animation|Children|Comedy|Fantasy
    2,"American President, The (1995)",Comedy|Drama|Romance
    3,Heat (1995),Action|Crime|Thriller
    4,Lucky Star (2016),(no genres listed)

    """

  static let ratings = """
    userId,movieId,rating,timestamp
    1,1,4.0,964982703
    1,2,3.0,964981247
    1,3,2.5,964982224
    2,1,5.0,964983815
    2,4,1.0,964982931
    2,2,3.5,964982400

    """

  static func movieLensDir() throws -> TempDir {
    let dir = try TempDir("menudeck-import")
    try FileManager.default.createDirectory(
      atPath: dir.file("ml"), withIntermediateDirectories: true)
    try dir.write("ml/movies.csv", movies)
    try dir.write("ml/ratings.csv", ratings)
    return dir
  }

  static let mlArguments = [
    "--columns", "user=userId,item=movieId,at=timestamp,rating=rating", "--right", "rating>=4",
    "--left", "rating<=2.5",
  ]

  @Test func movieLensImportWritesCatalogAndConfigAndSaysWhatItDid() throws {
    let dir = try Self.movieLensDir()
    let result = dir.run(["import", "movielens", "ml", "--out", "out"])
    #expect(result.code == .success)
    #expect(result.stdout.isEmpty)
    #expect(
      try dir.read("out/catalog.csv") == """
        id,name,category,tags,price,image,allergens,diets,weekdays,available_from,available_until
        1,Toy Story (1995),adventure,adventure|animation|children|comedy|fantasy,,,,,,,
        2,"American President, The (1995)",comedy,comedy|drama|romance,,,,,,,
        3,Heat (1995),action,action|crime|thriller,,,,,,,
        4,Lucky Star (2016),unknown,,,,,,,,

        """)
    #expect(
      try dir.read("out/menudeck.json") == """
        {
          "catalog": "catalog.csv",
          "history": "../ml/ratings.csv",
          "columns": {
            "map": {"user": "userId", "item": "movieId", "at": "timestamp", "rating": "rating"},
            "right": "rating>=4",
            "left": "rating<=2.5"
          }
        }

        """)
    #expect(try dir.names() == ["ml", "out"])
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: dir.file("out")).sorted() == [
        "catalog.csv", "menudeck.json",
      ])
    #expect(
      result.stderr == """
        menudeck: note: imported 4 movies in 4 categories into out/catalog.csv (config: out/menudeck.json)
        menudeck: note: categories: action 1, adventure 1, comedy 1, unknown 1
        menudeck: note: 1 movie without genres ('(no genres listed)') in category 'unknown'
        menudeck: note: ml/ratings.csv: 6 ratings: 2 right ('rating>=4'), 2 left ('rating<=2.5'), 2 neutral (not swipes); 2 users with a swipe
        menudeck: note: next: menudeck validate --catalog out/catalog.csv --history ml/ratings.csv --columns user=userId,item=movieId,at=timestamp,rating=rating --right 'rating>=4' --left 'rating<=2.5'
        menudeck: note:   or: menudeck validate --config out/menudeck.json

        """)
  }

  @Test func theImportedConfigAndTheOptionsReadTheLogTheSameWay() throws {
    let dir = try Self.movieLensDir()
    #expect(dir.run(["import", "movielens", "ml", "--out", "out"]).code == .success)
    let viaConfig = dir.run(["validate", "--config", "out/menudeck.json"])
    #expect(viaConfig.code == .success)
    #expect(viaConfig.stdout.contains("history  ml/ratings.csv"))
    #expect(viaConfig.stdout.contains("7 lines, 4 swipes (2 right, 2 left)"))
    let note =
      "menudeck: note: ml/ratings.csv: 6 ratings: 2 right ('rating>=4'), 2 left ('rating<=2.5'), 2 neutral "
      + "(neither rule; not swipes)\n"
    #expect(viaConfig.stderr == note)
    let viaOptions = dir.run(
      ["validate", "--catalog", "out/catalog.csv", "--history", "ml/ratings.csv"]
        + Self.mlArguments)
    #expect(viaOptions.code == .success)
    #expect(viaOptions.stdout.contains("7 lines, 4 swipes (2 right, 2 left)"))
    #expect(viaOptions.stderr == note)
  }

  @Test func decksLearnFromMappedLogsAndQuietSilencesTheNotes() throws {
    let dir = try Self.movieLensDir()
    #expect(dir.run(["import", "movielens", "ml", "--out", "out"]).code == .success)
    let arguments =
      [
        "deck", "--catalog", "out/catalog.csv", "--history", "ml/ratings.csv", "--date",
        "2000-08-01", "--strategy", "popularity", "--format", "csv",
      ] + Self.mlArguments
    let loud = dir.run(arguments)
    #expect(loud.code == .success)
    #expect(loud.stderr.hasPrefix("menudeck: note: ml/ratings.csv: 6 ratings: 2 right"))
    let quiet = dir.run(arguments + ["--quiet"])
    #expect(quiet.code == .success)
    #expect(quiet.stderr.isEmpty)
    #expect(quiet.stdout == loud.stdout)
    // One deck per diner of the log (neutral ratings alone would not make a diner).
    let rows = quiet.stdoutLines.dropFirst().filter { !$0.isEmpty }
    #expect(Set(rows.map { $0.split(separator: ",")[0] }) == ["1", "2"])
  }

  @Test func untimedLogsSayTheyHaveNoTimes() throws {
    let dir = try TempDir("menudeck-import")
    try dir.write("catalog.csv", "id,name,category\n135085,Tortas,mexican\n132825,Tacos,mexican\n")
    try dir.write(
      "rating_final.csv",
      "userID,placeID,rating,food_rating,service_rating\nU1,135085,2,2,2\nU1,132825,1,1,1\n")
    let result = dir.run([
      "validate", "--catalog", "catalog.csv", "--history", "rating_final.csv", "--columns",
      "user=userID,item=placeID,rating=rating", "--right", "rating=2", "--left", "rating=0",
    ])
    #expect(result.code == .success)
    #expect(
      result.stderr == """
        menudeck: note: rating_final.csv: 2 ratings: 1 right ('rating=2'), 0 left ('rating=0'), 1 neutral (neither rule; not swipes)
        menudeck: note: rating_final.csv: no time column: its events all carry 1970-01-01T00:00 (nothing that needs days, such as a temporal split, can use them); map one with --columns at=COLUMN

        """)
  }

  @Test(arguments: [
    (
      ["--columns", "usr=userId"],
      "--columns: unknown field 'usr' (did you mean 'user'?); fields: user, item, swipe, at, "
        + "position, deck, propensity, prefix_propensity, dx, width, rating"
    ),
    (
      ["--right", "rating>=4"],
      "--right needs --left too (e.g. --left 'rating<=2'); ratings matching neither are neutral"
    ),
    (
      ["--right", "rating>=3", "--left", "rating<=3"],
      "--right 'rating>=3' and --left 'rating<=3' overlap: a rating of 3 would be both a right "
        + "and a left swipe; make the rules disjoint"
    ),
    (
      ["--left", "stars<2", "--right", "rating>4"],
      "--left: rules compare the rating; 'stars<2' names 'stars' (map that column with "
        + "--columns rating=stars and write rating<2)"
    ),
  ])
  func badMappingsAreUsageErrorsNamingTheOption(_ options: [String], _ message: String) throws {
    let dir = try Self.movieLensDir()
    let result = dir.run(
      ["validate", "--catalog", "ml/movies.csv", "--history", "ml/ratings.csv"] + options)
    #expect(result.code == .usage)
    #expect(
      result.stderr
        == "menudeck: error: \(message)\nmenudeck: note: see 'menudeck validate --help'\n")
  }

  @Test func aMappedColumnMissingFromTheHeaderIsBadData() throws {
    let dir = try Self.movieLensDir()
    #expect(dir.run(["import", "movielens", "ml", "--out", "out"]).code == .success)
    let result = dir.run([
      "deck", "--catalog", "out/catalog.csv", "--history", "ml/ratings.csv", "--columns",
      "user=userID,item=movieId,at=timestamp,rating=rating", "--right", "rating>=4", "--left",
      "rating<=2.5",
    ])
    #expect(result.code == .dataError)
    #expect(
      result.stderr
        == "menudeck: error: ml/ratings.csv:1:1: the header has no column 'userID' (--columns user=userID) "
        + "(did you mean 'userId'?); the header has: 'userId', 'movieId', 'rating', 'timestamp'\n")
  }

  @Test func jsonLinesLogsAreRefusedWithAMapping() throws {
    let dir = try Self.movieLensDir()
    try dir.write("log.jsonl", #"{"userId":"1","movieId":"1","rating":4}"# + "\n")
    try dir.write("catalog.csv", "id,name,category\n1,Toy Story,adventure\n")
    let result = dir.run(
      ["validate", "--catalog", "catalog.csv", "--history", "log.jsonl"] + Self.mlArguments)
    #expect(result.code == .dataError)
    #expect(
      result.stderr.contains(
        "log.jsonl: --columns applies to CSV logs; this log is JSON Lines, whose keys must be "
          + "menudeck's (user, item, swipe, at, ...): rename them, or convert the log to CSV"))
  }

  @Test func theConfigKeyIsCheckedWhereItIsWritten() throws {
    let dir = try Self.movieLensDir()
    try dir.write(
      "bad.json",
      """
      {"catalog": "ml/movies.csv", "columns": {"map": {"usr": "userId"}}}
      """)
    let unknown = dir.run(["validate", "--config", "bad.json"])
    #expect(unknown.code == .dataError)
    #expect(
      unknown.stderr.contains(
        "bad.json:1:57: 'columns.map': unknown field 'usr' (did you mean 'user'?)"))
    try dir.write(
      "rules.json",
      """
      {"catalog": "ml/movies.csv", "columns": {"right": "rating>=4"}}
      """)
    let rules = dir.run(["validate", "--config", "rules.json"])
    #expect(rules.code == .dataError)
    #expect(
      rules.stderr.contains(
        "rules.json:1:41: 'columns.right' needs 'columns.left' too"))
  }

  @Test func commandLineRulesReplaceTheConfigsOneByOne() throws {
    let dir = try Self.movieLensDir()
    #expect(dir.run(["import", "movielens", "ml", "--out", "out"]).code == .success)
    let result = dir.run(["validate", "--config", "out/menudeck.json", "--right", "rating>=3.5"])
    #expect(result.code == .success)
    #expect(result.stdout.contains("7 lines, 5 swipes (3 right, 2 left)"))
    #expect(result.stderr.contains("3 right ('rating>=3.5'), 2 left ('rating<=2.5'), 1 neutral"))
  }

  // MARK: - UCI

  static func uciDir() throws -> TempDir {
    let dir = try TempDir("menudeck-import")
    try FileManager.default.createDirectory(
      atPath: dir.file("uci"), withIntermediateDirectories: true)
    // Latin-1, as the original UCI files: "Rincón" with the single byte 0xF3.
    var places = Array(
      "placeID,latitude,longitude,name,price\n135106,22.1,-100.9,El Rinc".utf8)
    places += [0xF3]
    places += Array(
      "n,medium\n132825,22.1,-100.9,puesto de tacos,low\n135041,22.1,-100.9,Luna,?\n".utf8)
    try dir.write("uci/geoplaces2.csv", places)
    try dir.write(
      "uci/chefmozcuisine.csv",
      """
      placeID,Rcuisine
      135041,Bar
      999999,Italian
      135041,Cafeteria
      135106,Mexican
      135041,Bar

      """)
    try dir.write(
      "uci/rating_final.csv",
      """
      userID,placeID,rating,food_rating,service_rating
      U1077,135106,2,2,2
      U1077,132825,1,2,2
      U1108,135041,0,0,1
      U1108,135106,2,1,1

      """)
    return dir
  }

  @Test func uciImportTakesTheFirstCuisineAndDecodesLatin1() throws {
    let dir = try Self.uciDir()
    let result = dir.run(["import", "uci", "uci", "--out", "out"])
    #expect(result.code == .success)
    #expect(
      try dir.read("out/catalog.csv") == """
        id,name,category,tags,price,image,allergens,diets,weekdays,available_from,available_until
        135106,El Rincón,mexican,mexican,,,,,,,
        132825,puesto de tacos,unknown,,,,,,,,
        135041,Luna,bar,bar|cafeteria,,,,,,,

        """)
    #expect(
      result.stderr == """
        menudeck: note: imported 3 restaurants in 3 categories into out/catalog.csv (config: out/menudeck.json)
        menudeck: note: categories: bar 1, mexican 1, unknown 1
        menudeck: note: skipped 1 row: cuisine of a place not in geoplaces2.csv (e.g. uci/chefmozcuisine.csv:3:1)
        menudeck: note: skipped 1 row: repeated cuisine row (e.g. uci/chefmozcuisine.csv:6:8)
        menudeck: note: uci/geoplaces2.csv: not UTF-8; read as Latin-1 (ISO 8859-1)
        menudeck: note: 1 place without a cuisine in category 'unknown'
        menudeck: note: 1 place with several cuisines: the first in chefmozcuisine.csv is the category, all are tags
        menudeck: note: uci/rating_final.csv: 4 ratings: 2 right ('rating=2'), 1 left ('rating=0'), 1 neutral (not swipes); 2 users with a swipe; no times (every event at 1970-01-01T00:00)
        menudeck: note: next: menudeck validate --catalog out/catalog.csv --history uci/rating_final.csv --columns user=userID,item=placeID,rating=rating --right 'rating=2' --left 'rating=0'
        menudeck: note:   or: menudeck validate --config out/menudeck.json

        """)
    let check = dir.run(["validate", "--config", "out/menudeck.json"])
    #expect(check.code == .success)
    #expect(check.stdout.contains("5 lines, 3 swipes (2 right, 1 left)"))
  }

  @Test func malformedSourcesAreBadDataWithFileAndLine() throws {
    let dir = try Self.movieLensDir()
    try dir.write("ml/movies.csv", "movieId,title,genres\n1,A,Drama\n2,B,Drama\n1,C,Comedy\n")
    let duplicate = dir.run(["import", "movielens", "ml", "--out", "out"])
    #expect(duplicate.code == .dataError)
    #expect(
      duplicate.stderr
        == "menudeck: error: ml/movies.csv:4:1: duplicate movieId '1' (first on line 2); keep one row per "
        + "movie\n")
    #expect(!dir.exists("out/catalog.csv"))
    try dir.write("ml/movies.csv", "movieId,name,genres\n1,A,Drama\n")
    let column = dir.run(["import", "movielens", "ml", "--out", "out"])
    #expect(column.code == .dataError)
    #expect(
      column.stderr
        == "menudeck: error: ml/movies.csv:1: missing column 'title'; the header has: 'movieId', 'name', "
        + "'genres'\n")
  }

  @Test func aMissingDataSetIsMissingInput() throws {
    let dir = try TempDir("menudeck-import")
    let result = dir.run(["import", "uci", "nowhere", "--out", "out"])
    #expect(result.code == .noInput)
    #expect(
      result.stderr
        == "menudeck: error: nowhere/geoplaces2.csv: no such file (the UCI places file); check the path or "
        + "the config\n")
    let usage = dir.run(["import", "uci", "nowhere"])
    #expect(usage.code == .usage)
    #expect(
      usage.stderr.hasPrefix(
        "menudeck: error: missing '--out <dir>': the directory to write catalog.csv and menudeck.json\n"
      ))
  }
}
