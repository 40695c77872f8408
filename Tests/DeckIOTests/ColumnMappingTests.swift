import DeckBase
import DeckCore
import Foundation
import Testing

@testable import DeckIO

private let movieLensMapping = try! ColumnMapping(
  columns: [.user: "userId", .item: "movieId", .at: "timestamp", .rating: "rating"],
  right: RatingRule(.atLeast, 4), left: RatingRule(.atMost, 2.5))

private let uciMapping = try! ColumnMapping(
  columns: [.user: "userID", .item: "placeID", .rating: "rating"],
  right: RatingRule(.equal, 2), left: RatingRule(.equal, 0))

private func mapped(_ mapping: ColumnMapping, zone: any UTCOffsetProvider = FixedUTCOffset.utc)
  -> EventReaderOptions
{
  EventReaderOptions(zone: zone, columns: mapping)
}

/// The message of the error `body` throws, or nil.
private func mappingError(_ body: () throws(ColumnMappingError) -> Void) -> String? {
  do {
    try body()
    return nil
  } catch {
    return error.message
  }
}

private func readError(
  _ text: String, _ options: EventReaderOptions, format: EventFormat = .csv
) -> DeckIOError? {
  do {
    _ = try readEvents(text, format, options: options, name: "r.csv")
    return nil
  } catch {
    return error
  }
}

@Suite struct ColumnMappingParsingTests {
  @Test func parsesFieldColumnPairsTrimmingSpaces() throws {
    let columns = try ColumnMapping.parseColumns(
      " user = userId ,item=movieId,at=timestamp, rating=rating")
    #expect(
      columns == [.user: "userId", .item: "movieId", .at: "timestamp", .rating: "rating"])
    let mapping = try ColumnMapping(
      columns: columns, right: RatingRule(.atLeast, 4), left: RatingRule(.atMost, 2.5))
    #expect(mapping.columnsSpec == "user=userId,item=movieId,at=timestamp,rating=rating")
  }

  @Test func columnNamesMayHoldSpacesAndEqualsSigns() throws {
    let columns = try ColumnMapping.parseColumns("user=user id,item=a=b")
    #expect(columns == [.user: "user id", .item: "a=b"])
  }

  @Test(arguments: [
    (
      "usr=userId",
      "--columns: unknown field 'usr' (did you mean 'user'?); fields: user, item, swipe, at, "
        + "position, deck, propensity, prefix_propensity, dx, width, rating"
    ),
    (
      "time=ts",
      "--columns: unknown field 'time'; fields: user, item, swipe, at, position, deck, "
        + "propensity, prefix_propensity, dx, width, rating"
    ),
    ("userId", "--columns: 'userId' is not field=column; write e.g. user=userId,item=movieId"),
    ("user=", "--columns: 'user' has no column name; write user=COLUMN"),
    ("user=a,user=b", "--columns: 'user' is given twice; keep one"),
    (
      "user=a,,item=b",
      "--columns: empty entry in 'user=a,,item=b'; write field=column pairs separated by "
        + "commas, e.g. user=userId,item=movieId"
    ),
    (
      "",
      "--columns: empty entry in ''; write field=column pairs separated by commas, e.g. "
        + "user=userId,item=movieId"
    ),
  ])
  func badColumnSpecsSayWhatIsValid(_ spec: String, _ message: String) {
    #expect(
      mappingError { () throws(ColumnMappingError) in
        _ = try ColumnMapping.parseColumns(spec)
      } == message)
  }

  @Test func theLabelNamesTheOption() {
    #expect(
      mappingError { () throws(ColumnMappingError) in
        _ = try ColumnMapping.parseColumns("x=y", label: "'columns.map'")
      }?.hasPrefix("'columns.map': unknown field 'x'") == true)
  }

  @Test(arguments: [
    ("rating>=4", RatingRule(.atLeast, 4)),
    (" rating >= 4 ", RatingRule(.atLeast, 4)),
    (">=4", RatingRule(.atLeast, 4)),
    ("rating>3.5", RatingRule(.above, 3.5)),
    ("rating<=2.5", RatingRule(.atMost, 2.5)),
    ("rating<0.5", RatingRule(.below, 0.5)),
    ("rating=2", RatingRule(.equal, 2)),
    ("rating=-1", RatingRule(.equal, -1)),
    ("rating>=1e1", RatingRule(.atLeast, 10)),
  ])
  func parsesRules(_ text: String, _ rule: RatingRule) throws {
    #expect(try RatingRule.parse(text, label: "--right") == rule)
  }

  @Test(arguments: [
    (
      "rating=>4",
      "--right: '>4' in 'rating=>4' is not a number; write e.g. 'rating>=4' or 'rating<=2.5'"
    ),
    (
      "rating>=",
      "--right: '' in 'rating>=' is not a number; write e.g. 'rating>=4' or 'rating<=2.5'"
    ),
    (
      "rating>=four",
      "--right: 'four' in 'rating>=four' is not a number; write e.g. 'rating>=4' or "
        + "'rating<=2.5'"
    ),
    (
      "rating>=1e999",
      "--right: '1e999' in 'rating>=1e999' is not a number; write e.g. 'rating>=4' or "
        + "'rating<=2.5'"
    ),
    (
      "rating 4",
      "--right: 'rating 4' is not a rule; write e.g. 'rating>=4' (operators >=, >, <=, <, =)"
    ),
    (
      "rating!=4",
      "--right: 'rating!=4' is not a rule; write e.g. 'rating>=4' (operators >=, >, <=, <, =)"
    ),
    (
      "score>=4",
      "--right: rules compare the rating; 'score>=4' names 'score' (map that column with "
        + "--columns rating=score and write rating>=4)"
    ),
  ])
  func badRulesSayWhatIsValid(_ text: String, _ message: String) {
    #expect(
      mappingError { () throws(ColumnMappingError) in
        _ = try RatingRule.parse(text, label: "--right")
      } == message)
  }

  @Test func rulesMatchAtTheirBoundaries() {
    let atLeast = RatingRule(.atLeast, 4)
    #expect(atLeast.matches(4) && atLeast.matches(4.5) && !atLeast.matches(3.5))
    #expect(!atLeast.matches(4.0.nextDown))
    let above = RatingRule(.above, 4)
    #expect(!above.matches(4) && above.matches(4.0.nextUp))
    let atMost = RatingRule(.atMost, 2.5)
    #expect(atMost.matches(2.5) && atMost.matches(0.5) && !atMost.matches(2.5.nextUp))
    let below = RatingRule(.below, 2.5)
    #expect(!below.matches(2.5) && below.matches(2.5.nextDown))
    let equal = RatingRule(.equal, 2)
    #expect(equal.matches(2) && !equal.matches(2.0.nextUp) && !equal.matches(1))
    #expect(atLeast.description == "rating>=4" && atMost.description == "rating<=2.5")
  }

  @Test(
    arguments: [
      (RatingRule(.atLeast, 4), RatingRule(.atMost, 2.5), nil),
      (RatingRule(.atLeast, 3), RatingRule(.atMost, 3), 3),
      (RatingRule(.above, 3), RatingRule(.atMost, 3), nil),
      (RatingRule(.atLeast, 3), RatingRule(.below, 3), nil),
      (RatingRule(.above, 2), RatingRule(.below, 4), 3),
      (RatingRule(.equal, 2), RatingRule(.equal, 2), 2),
      (RatingRule(.equal, 2), RatingRule(.equal, 0), nil),
      (RatingRule(.atLeast, 2), RatingRule(.equal, 5), 5),
      (RatingRule(.below, 1), RatingRule(.below, 2), 0),
      (RatingRule(.above, 1), RatingRule(.above, 2), 3),
      (RatingRule(.equal, 2), RatingRule(.above, 2), nil),
    ] as [(RatingRule, RatingRule, Double?)])
  func overlappingRulesAreFoundWithAWitness(
    _ a: RatingRule, _ b: RatingRule, _ witness: Double?
  ) {
    #expect(a.overlap(with: b) == witness)
    #expect(b.overlap(with: a) == witness)
    if let witness {
      #expect(a.matches(witness) && b.matches(witness))
    }
  }

  @Test(
    arguments: [
      (
        [ColumnMapping.Field.user: "id", .item: "id"], RatingRule?.none, RatingRule?.none,
        "--columns: column 'id' is given for both user and item; each field needs its own column"
      ),
      (
        [.rating: "stars"], nil, nil,
        "--columns maps rating, but no rule says which ratings are swipes; add e.g. --right "
          + "'rating>=4' --left 'rating<=2'"
      ),
      (
        [.swipe: "liked"], RatingRule(.atLeast, 4), RatingRule(.atMost, 2),
        "--columns maps swipe, but --right/--left take the swipe from the rating; keep one of the "
          + "two ways"
      ),
      (
        [:], RatingRule(.atLeast, 4), nil,
        "--right needs --left too (e.g. --left 'rating<=2'); ratings matching neither are neutral"
      ),
      (
        [:], nil, RatingRule(.atMost, 2),
        "--left needs --right too (e.g. --right 'rating>=4'); a log with left swipes only has "
          + "nothing to learn likes from"
      ),
      (
        [:], RatingRule(.atLeast, 2.5), RatingRule(.atMost, 2.5),
        "--right 'rating>=2.5' and --left 'rating<=2.5' overlap: a rating of 2.5 would be both a "
          + "right and a left swipe; make the rules disjoint"
      ),
    ] as [([ColumnMapping.Field: String], RatingRule?, RatingRule?, String)])
  func inconsistentMappingsAreRefused(
    _ columns: [ColumnMapping.Field: String], _ right: RatingRule?, _ left: RatingRule?,
    _ message: String
  ) {
    #expect(
      mappingError { () throws(ColumnMappingError) in
        _ = try ColumnMapping(columns: columns, right: right, left: left)
      } == message)
  }
}

@Suite struct ColumnMappingReaderTests {
  static let movieLensLog = """
    userId,movieId,rating,timestamp
    1,1,4.0,964982703
    1,3,2.5,964981247
    1,6,3.5,964982224
    2,47,5.0,964983815.75
    2,50,0.5,964982931
    3,70,3.0,964982400
    3,101,4.5,964980868

    """

  @Test func movieLensRatingsBecomeSwipesAndNeutralEvents() throws {
    let (events, stats) = try readEvents(
      Self.movieLensLog, .csv, options: mapped(movieLensMapping))
    #expect(
      events == [
        SwipeEvent(user: "1", item: "1", swipe: .right, at: 964_982_703),
        SwipeEvent(user: "1", item: "3", swipe: .left, at: 964_981_247),
        SwipeEvent(user: "2", item: "47", swipe: .right, at: 964_983_815),
        SwipeEvent(user: "2", item: "50", swipe: .left, at: 964_982_931),
        SwipeEvent(user: "3", item: "101", swipe: .right, at: 964_980_868),
      ])
    #expect(stats.events == 5 && stats.right == 3 && stats.left == 2)
    #expect(stats.neutral == 2 && stats.files[0].neutral == 2)
    #expect(stats.lines == 8 && stats.skippedLines == 0 && !stats.untimed)
  }

  @Test func epochSecondsAreInstantsShownInTheConfiguredZone() throws {
    let (events, _) = try readEvents(
      Self.movieLensLog, .csv,
      options: mapped(movieLensMapping, zone: FixedUTCOffset(seconds: -7200)))
    let shifted: [Int64] = [964_982_703 - 7200, 964_981_247 - 7200]
    #expect(Array(events.map(\.at).prefix(2)) == shifted)
    // Mapped logs still take ISO 8601.
    let iso = "userId,movieId,rating,timestamp\n1,1,5,2026-11-30T12:00:00Z\n1,2,5,2026-11-30\n"
    let (isoEvents, _) = try readEvents(
      iso, .csv, options: mapped(movieLensMapping, zone: FixedUTCOffset(seconds: 3600)))
    #expect(isoEvents.map(\.at) == [localTime(2026, 11, 30, 13), localTime(2026, 11, 30)])
  }

  @Test func uciRatingsWithoutTimesAreUntimed() throws {
    let log = """
      userID,placeID,rating,food_rating,service_rating
      U1077,135085,2,2,2
      U1077,132825,1,2,2
      U1108,135038,0,0,1

      """
    let (events, stats) = try readEvents(log, .csv, options: mapped(uciMapping))
    #expect(
      events == [
        SwipeEvent(user: "U1077", item: "135085", swipe: .right, at: 0),
        SwipeEvent(user: "U1108", item: "135038", swipe: .left, at: 0),
      ])
    #expect(stats.neutral == 1 && stats.untimed && stats.files[0].untimed)
  }

  @Test func unmappedLogsAreNeverUntimedAndRefuseEpochSeconds() {
    let native = "user,item,swipe,at\nu1,a,right,1537799250\n"
    #expect(
      readError(native, EventReaderOptions())
        == .malformed(
          SourceLocation(file: "r.csv", line: 2, column: 16, field: "at"),
          message: "'1537799250' is not a valid time (not a date); use "
            + "YYYY-MM-DD or YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM]"))
    let untimed = "user,item,swipe\nu1,a,right\n"
    #expect(
      readError(untimed, EventReaderOptions())
        == .malformed(
          SourceLocation(file: "r.csv", line: 1, column: 1),
          message: "the header has no 'at' column; it must name user, item, at and swipe (or dx)"
        ))
  }

  @Test func badTimesInMappedLogsNameBothForms() {
    let log = "userId,movieId,rating,timestamp\n1,1,4,12:30\n"
    #expect(
      readError(log, mapped(movieLensMapping))
        == .malformed(
          SourceLocation(file: "r.csv", line: 2, column: 7, field: "timestamp"),
          message: "'12:30' is not a valid time (too short); use YYYY-MM-DD or "
            + "YYYY-MM-DDTHH:MM:SS[.fff][Z|±HH:MM] or Unix seconds"))
    let millis = "userId,movieId,rating,timestamp\n1,1,4,1537799250000\n"
    #expect(
      readError(millis, mapped(movieLensMapping))
        == .malformed(
          SourceLocation(file: "r.csv", line: 2, column: 7, field: "timestamp"),
          message: "'1537799250000' is beyond 9999-12-31 as Unix seconds (milliseconds? divide by "
            + "1000)"))
  }

  @Test func aMissingMappedColumnNamesFileLineAndColumn() {
    let log = "userID,movieId,rating,timestamp\n1,1,4,964982703\n"
    #expect(
      readError(log, mapped(movieLensMapping))
        == .malformed(
          SourceLocation(file: "r.csv", line: 1, column: 1),
          message: "the header has no column 'userId' (--columns user=userId) (did you mean "
            + "'userID'?); the header has: 'userID', 'movieId', 'rating', 'timestamp'"))
  }

  @Test func badValuesAreReportedUnderTheLogsOwnColumnNames() {
    let empty = "userId,movieId,rating,timestamp\n,1,4,964982703\n"
    #expect(
      readError(empty, mapped(movieLensMapping))
        == .malformed(
          SourceLocation(file: "r.csv", line: 2, column: 1, field: "userId"),
          message: "empty; give a non-empty user id"))
    let stars = try! ColumnMapping(
      columns: [.rating: "stars"], right: RatingRule(.atLeast, 4), left: RatingRule(.atMost, 2))
    let text = "user,item,at,stars\nu1,a,2026-11-30,four\nu1,b,2026-11-30,\n"
    #expect(
      readError(text, mapped(stars))
        == .malformed(
          SourceLocation(file: "r.csv", line: 2, column: 17, field: "stars"),
          message: "'four' is not a number; the rating rules compare numbers like 4 or 2.5"))
    // Under --skip-bad-lines both bad ratings are skipped and counted, the run goes on.
    var options = mapped(stars)
    options.skipBadLines = true
    let read = try? readEvents(text, .csv, options: options)
    #expect(read?.stats.skippedLines == 2 && read?.events.isEmpty == true)
  }

  @Test func unmappedFieldsKeepTheirOwnColumnNames() throws {
    let mapping = try ColumnMapping(columns: [.item: "dish"])
    let log = "user,dish,item,swipe,at\nu1,ramen,ignored,right,2026-11-30\n"
    let (events, stats) = try readEvents(log, .csv, options: mapped(mapping))
    #expect(
      events == [SwipeEvent(user: "u1", item: "ramen", swipe: .right, at: localTime(2026, 11, 30))])
    #expect(!stats.untimed && stats.neutral == 0)
  }

  @Test func prefixPropensitiesFromTheirMappedColumn() throws {
    // Open Bandit Pipeline's names: pscore for the propensity, pscore_cascade for the prefix.
    let columns = try ColumnMapping.parseColumns(
      "propensity=pscore,prefix_propensity=pscore_cascade")
    #expect(columns == [.propensity: "pscore", .prefixPropensity: "pscore_cascade"])
    let mapping = try ColumnMapping(columns: columns)
    #expect(mapping.columnsSpec == "propensity=pscore,prefix_propensity=pscore_cascade")
    let log =
      "user,item,swipe,at,position,pscore,pscore_cascade,prefix_propensity\n"
      + "u1,a,right,2026-11-30,1,0.5,0.5,0.9\nu1,b,left,2026-11-30,2,0.5,0.25,\n"
    let (events, _) = try readEvents(log, .csv, options: mapped(mapping))
    // The column with the field's own name is ignored when the mapping names another.
    #expect(events.map(\.prefixPropensity) == [0.5, 0.25])
    #expect(events.map(\.propensity) == [0.5, 0.5])
    // A bad value is named by the log's own column.
    #expect(
      readError(
        "user,item,swipe,at,pscore,pscore_cascade\nu1,a,right,2026-11-30,0.5,1.5\n",
        mapped(mapping))
        == .malformed(
          SourceLocation(file: "r.csv", line: 2, column: 27, field: "pscore_cascade"),
          message: "'1.5' is out of range: give the probability the ranking had of showing the "
            + "deck's cards from position 1 to this one, in their order, above 0 and up to 1"))
  }

  @Test func rulesAloneReadTheRatingColumnAndIgnoreSwipeColumns() throws {
    let mapping = try ColumnMapping(
      columns: [:], right: RatingRule(.above, 3), left: RatingRule(.below, 2))
    let log = "user,item,at,swipe,rating\nu1,a,2026-11-30,left,5\nu1,b,2026-11-30,right,1\n"
    let (events, _) = try readEvents(log, .csv, options: mapped(mapping))
    #expect(events.map(\.swipe) == [.right, .left])
  }

  @Test func aHeaderWithoutTheRatingColumnIsRefused() {
    let mapping = try! ColumnMapping(
      columns: [:], right: RatingRule(.above, 3), left: RatingRule(.below, 2))
    #expect(
      readError("user,item,at,swipe\nu1,a,2026-11-30,left\n", mapped(mapping))
        == .malformed(
          SourceLocation(file: "r.csv", line: 1, column: 1),
          message: "the header has no 'rating' column for --right/--left; name it with "
            + "--columns rating=COLUMN (the header has: 'user', 'item', 'at', 'swipe')"))
  }

  @Test func aColumnNamedTwiceIsRefused() {
    #expect(
      readError("userId,movieId,rating,rating,timestamp\n", mapped(movieLensMapping))
        == .malformed(
          SourceLocation(file: "r.csv", line: 1, column: 23),
          message: "the header has the column 'rating' twice; keep one"))
  }

  @Test func jsonLinesLogsAreRefusedWithAMapping() {
    #expect(
      readError("{\"userId\":\"1\"}\n", mapped(movieLensMapping), format: .jsonLines)
        == .invalid(
          path: "r.csv",
          message: "--columns applies to CSV logs; this log is JSON Lines, whose keys must be "
            + "menudeck's (user, item, swipe, at, ...): rename them, or convert the log to CSV"))
  }

  @Test func readingInSmallChunksGivesTheSameCounts() throws {
    var options = mapped(movieLensMapping)
    options.chunkSize = 16
    let (events, stats) = try readEvents(Self.movieLensLog, .csv, options: options)
    #expect(events.count == 5 && stats.neutral == 2 && stats.lines == 8)
  }
}

@Suite struct EpochSecondsTests {
  @Test(arguments: [
    ("0", Timestamp.Epoch.seconds(0)),
    ("964982703", .seconds(964_982_703)),
    ("964982703.999", .seconds(964_982_703)),
    ("253402300799", .seconds(253_402_300_799)),
    ("253402300800", .outOfRange),
    ("99999999999999999999999", .outOfRange),
    ("", .notEpoch),
    ("1.", .notEpoch),
    (".5", .notEpoch),
    ("-1", .notEpoch),
    ("1e9", .notEpoch),
    ("12 ", .notEpoch),
  ])
  func epochSeconds(_ text: String, _ expected: Timestamp.Epoch) {
    let bytes = Array(text.utf8)
    #expect(bytes.withUnsafeBufferPointer { Timestamp.epochSeconds($0) } == expected)
  }
}
