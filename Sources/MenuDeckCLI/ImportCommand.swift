import DeckBase
import DeckCommandLine
import DeckJobs
import DeckSimulation
import Foundation

let importCommand = CommandSpec(
  name: "import",
  abstract: "Turn a public ratings data set into a menudeck catalog and config.",
  discussion: """
    Writes OUT/catalog.csv (menudeck's catalog CSV) and OUT/menudeck.json (a config naming that \
    catalog, the data set's ratings log as its history, and the column mapping that reads the \
    log in place), atomically. The ratings log is not copied: every command that reads logs \
    reads it with --columns, --right and --left (or the config's "columns"). The summary on \
    stderr gives the items, categories, skipped rows and the swipes the ratings make.

    Follow-up, for MovieLens (times are the log's Unix seconds):
      menudeck validate --catalog OUT/catalog.csv --history DIR/ratings.csv \\
        --columns user=userId,item=movieId,at=timestamp,rating=rating \\
        --right 'rating>=4' --left 'rating<=2.5'
    and for UCI (no times: every event is at 1970-01-01T00:00, no temporal split):
      menudeck validate --catalog OUT/catalog.csv --history DIR/rating_final.csv \\
        --columns user=userID,item=placeID,rating=rating --right 'rating=2' --left 'rating=0'
    or, for either, 'menudeck validate --config OUT/menudeck.json'.
    """,
  subcommands: [
    importSubcommand(
      .movielens, abstract: "MovieLens ml-latest-small: movies are the catalog.",
      discussion: """
        Reads DIR/movies.csv (movieId,title,genres): one item per movie, the first genre as \
        listed is the category, all genres are tags; movies with '(no genres listed)' go to \
        category 'unknown'. DIR/ratings.csv (userId,movieId,rating,timestamp) is the log: \
        rating >= 4 is a right swipe, rating <= 2.5 a left swipe, ratings in between are \
        neutral (counted, not swipes); timestamps are Unix seconds. menudeck does not ship the \
        data: DIR is ml-latest-small.zip from GroupLens (grouplens.org/datasets/movielens), \
        unpacked.

        Example:
          menudeck import movielens ~/data/ml-latest-small --out Real/movielens
        """),
    importSubcommand(
      .uci, abstract: "UCI restaurant and consumer data: restaurants are the catalog.",
      discussion: """
        Reads DIR/geoplaces2.csv (placeID, name, ...) and DIR/chefmozcuisine.csv \
        (placeID,Rcuisine): one item per place, its first cuisine in file order is the \
        category, all its cuisines are tags; places without a cuisine go to category \
        'unknown'. DIR/rating_final.csv (userID,placeID,rating,...) is the log: rating 2 is a \
        right swipe, 0 a left swipe, 1 neutral (counted, not a swipe). The data has no times. \
        menudeck does not ship the data: DIR holds the CSV files of the UCI Machine Learning \
        Repository's "Restaurant & consumer data" set (archive.ics.uci.edu).

        Example:
          menudeck import uci ~/data/uci-restaurants --out Real/uci
        """),
  ])

private func importSubcommand(_ dataSet: RealDataSet, abstract: String, discussion: String)
  -> CommandSpec
{
  CommandSpec(
    name: dataSet.rawValue, abstract: abstract, discussion: discussion,
    options: [RealDataImportRun.out.spec, OutputOptions.wait.spec],
    arguments: [CommandArgument("dir", help: "The data set's directory.")],
    run: { args, context in
      let request = try ImportRequest(dataSet, args, context)
      let outcome = try ImportJob.run(request, context.job)
      for (severity, line) in RealDataImportRun.summary(outcome, request) {
        context.diagnostics.print(severity, line, code: "summary")
      }
      return .success
    })
}

enum RealDataImportRun {
  static let out = Option<String>(
    "out", valueName: "dir",
    help: "Directory for catalog.csv and menudeck.json (created if missing).")

  /// The run's summary: what was imported, what was skipped, what the ratings make, and the
  /// commands to run next.
  static func summary(_ outcome: ImportJob.Outcome, _ request: ImportRequest)
    -> [(Severity, String)]
  {
    let (imported, counts, users) = (outcome.imported, outcome.counts.log, outcome.counts.users)
    let (dataSet, dir, out) = (request.dataSet, request.directory, request.out)
    let what = dataSet == .movielens ? "movie" : "restaurant"
    let categories = imported.categoryCounts
    var lines: [(Severity, String)] = []
    func note(_ text: String) { lines.append((.note, text)) }
    note(
      "imported \(plural(imported.items.count, what)) in "
        + "\(plural(categories.count, "category", "categories")) into \(FileSystem.join(out, "catalog.csv")) "
        + "(config: \(FileSystem.join(out, "menudeck.json")))")
    note(
      "categories: " + categories.map { "\($0.category) \($0.items)" }.joined(separator: ", "))
    for s in imported.skipped {
      note(
        "skipped \(plural(s.count, "row")): \(s.reason) (e.g. "
          + s.examples.joined(separator: ", ") + ")")
    }
    lines += imported.notes.map { (.note, $0) }
    let m = dataSet.mapping
    note(
      "\(FileSystem.join(dir, dataSet.ratingsFile)): "
        + "\(plural(counts.right + counts.left + counts.neutral, "rating")): \(counts.right) right "
        + "('\(m.right!)'), \(counts.left) left ('\(m.left!)'), \(counts.neutral) neutral (not "
        + "swipes); \(plural(users, "user")) with a swipe"
        + (counts.untimed ? "; no times (every event at 1970-01-01T00:00)" : ""))
    if counts.unknownItemEvents > 0 {
      lines.append(
        (.warning, "\(plural(counts.unknownItemEvents, "swipe")) on items not in the catalog"))
    }
    note(
      "next: menudeck validate --catalog \(shell(FileSystem.join(out, "catalog.csv"))) --history "
        + "\(shell(FileSystem.join(dir, dataSet.ratingsFile))) \(dataSet.mappingArguments)")
    note("  or: menudeck validate --config \(shell(FileSystem.join(out, "menudeck.json")))")
    return lines
  }

  /// A path as typed in a POSIX shell: quoted when it holds anything but plain characters.
  static func shell(_ s: String) -> String {
    let plain = s.unicodeScalars.allSatisfy {
      ($0.value < 0x80 && ($0.properties.isAlphabetic || ("0"..."9").contains($0)))
        || "/._-+=,:@%".unicodeScalars.contains($0)
    }
    if plain && !s.isEmpty { return s }
    return "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }
}
