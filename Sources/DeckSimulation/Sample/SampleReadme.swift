import DeckCore
import DeckIO

extension SampleData {
  /// Data/README.md: what the files hold, their fields, figures computed from the data, and how
  /// to regenerate them. One section per function; sections are separated by a blank line.
  static func readme(seed: UInt64, events: [LogEvent]) -> String {
    [
      readmeIntro(seed: seed, events: events), readmeCatalog(), readmeUsers(),
      readmeSwipeLog(events), readmeRegenerating(),
    ].joined(separator: "\n\n") + "\n"
  }

  /// The dishes per category, in catalog order of first appearance.
  private static func categoryCounts() -> [(String, Int)] {
    var categoryCounts: [(String, Int)] = []
    for item in items {
      if let k = categoryCounts.firstIndex(where: { $0.0 == item.category }) {
        categoryCounts[k].1 += 1
      } else {
        categoryCounts.append((item.category, 1))
      }
    }
    return categoryCounts
  }

  /// The title, where the data comes from, and the files.
  private static func readmeIntro(seed: UInt64, events: [LogEvent]) -> String {
    let categories = categoryCounts().count
    return """
      # Sample data

      A realistic, made-up data set for menudeck: the dinner menu of a Japanese home-style \
      restaurant, its diners, and their swipes over the two weeks before \(deckDate) (a \
      \(deckDate.weekday.name.capitalized)), the deck date the sample is made for.

      All files are written by a deterministic generator (`SampleData` in \
      `Sources/DeckSimulation/Sample/`), from tables in the source and seeded random streams (seed \
      \(seed)). Do not edit them by hand: a test compares them byte for byte with what the \
      generator writes.

      | file | contents |
      |---|---|
      | `catalog.json` | the menu: \(items.count) dishes in \(categories) categories |
      | `catalog.csv` | the same menu as CSV |
      | `users.json` | \(users.count) diners |
      | `users.csv` | the same diners as CSV |
      | `swipes.jsonl` | the swipe log, \(events.count) lines (JSON Lines) |
      | `swipes.csv` | the same log as CSV |
      """
  }

  /// The catalog's categories and fields, with examples from the catalog itself.
  private static func readmeCatalog() -> String {
    let categoryList = categoryCounts().map { "\($0.0) (\($0.1))" }.joined(separator: ", ")
    let unavailable = items.filter { !$0.availability.allows(deckDate) }.map(\.id)
    // Examples are taken from the files themselves, so they can never go stale.
    let exampleItems = ["nikujaga", "saba-misoni", "oden"].compactMap { id in
      items.first { $0.id == id }.map { catalogJSONObject($0) }
    }.joined(separator: "\n")
    return """
      ## Catalog

      Categories: \(categoryList).

      Fields (JSON key; the CSV column is the same unless noted):

      - `id`: ASCII slug, unique (`nikujaga`).
      - `name`: display name, English with the Japanese in parentheses. Some names contain commas \
      and double quotes (`Chef's "special" curry, extra hot`) so that CSV quoting is exercised.
      - `category`, `tags`: tags describe the main ingredient and style (`beef`, `fish`, `tofu`, \
      `spicy`, `light`, `hearty`, `seasonal`, `kids`, ...).
      - `price`: yen, an integer; missing for the market-price sashimi platter.
      - `image`: asset name; missing for a few dishes.
      - `allergens`: the Japanese food-labelling allergens the dish contains, as lowercase words \
      (`egg`, `milk`, `wheat`, `shrimp`, `crab`, `buckwheat`, `peanut`, `soy`, `sesame`, `fish`, \
      `salmon`, `mackerel`, `squid`, `apple`, ...). `fish` marks bonito or other fish stock too.
      - `diets`: the diets the dish satisfies: `vegetarian`, `vegan`, `pescatarian`, \
      `gluten-free`, `halal`. A vegan dish is also vegetarian, a vegetarian dish also \
      pescatarian; a gluten-free dish contains no wheat.
      - `available` (CSV: `weekdays`, `available_from`, `available_until`): the weekdays the dish \
      is served (`mon` ... `sun`) and the first and last day (inclusive); absent means every day. \
      Fish is served on market days, some hot pots on weekends, navy curry on Fridays; seasonal \
      dishes have date ranges. \(unavailable.count) dishes are not served on \(deckDate).

      In JSON, keys that are absent and lists that are empty are left out; in CSV they are empty \
      cells. Multiple values in one CSV cell are separated by `|`. CSV files use LF line ends and \
      quote a field only when it holds a comma, a quote or a line break.

      ```json
      \(exampleItems)
      ```
      """
  }

  /// The users' fields and how many diners have each kind of constraint.
  private static func readmeUsers() -> String {
    let dietUsers = users.filter { !$0.diets.isEmpty }.count
    let allergenUsers = users.filter { !$0.allergens.isEmpty }.count
    let dislikeUsers = users.filter { !$0.dislikedCategories.isEmpty }.count
    return """
      ## Users

      `id` (`u01` ...), `diets` (the dish must satisfy every one), `allergens` (never shown a dish \
      containing one), `disliked_categories` (the same name in JSON and CSV). \(dietUsers) diners \
      follow a diet, \(allergenUsers) avoid allergens, \(dislikeUsers) dislike some categories.
      """
  }

  /// The log's figures, fields and how it is made, with examples from the log itself.
  private static func readmeSwipeLog(_ events: [LogEvent]) -> String {
    let right = events.filter { committed($0) == .right }.count
    let left = events.filter { committed($0) == .left }.count
    let drags = events.filter { $0.drag != nil }.count
    let hesitations = events.filter { $0.drag != nil && committed($0) == nil }.count
    var sessionKeys: Set<String> = []
    for e in events { sessionKeys.insert(e.user + " " + e.deck!.description) }
    let firstSwipe = events.first { $0.swipe != nil }
    let firstDrag = events.first { $0.drag != nil }
    let exampleEvents = [firstSwipe, firstDrag].compactMap { $0 }.map(eventJSON).joined(
      separator: "\n")
    return """
      ## Swipe log

      \(firstLogDay) to \(lastLogDay), times in Japan (`\(utcOffset)`), sorted by time: \
      \(events.count) lines in \(sessionKeys.count) sessions, \(right) right swipes (picks) and \
      \(left) left swipes. \(drags) lines log the raw drag instead of `swipe`; \(hesitations) of \
      those spring back (hesitations, not swipes).

      ```json
      \(exampleEvents)
      ```

      - `user`, `item`: ids from the files above.
      - `swipe`: `right` (I'll have this today) or `left` (not this one).
      - `dx`, `width` (instead of `swipe`): the drag in points and the card width, decided by the \
      food-menu app's rule: a swipe when |dx| / width > 0.45, in the direction of the sign of dx; \
      otherwise the card springs back.
      - `at`: ISO 8601 date-time; `position`: 1-based card position in the deck; `deck`: the \
      deck's date.

      CSV columns: `\(eventsCSVHeader)`, empty cells where a line has no value.

      How the log is made: each diner has hidden tastes per category and tag. On each day a diner \
      opens the app with a personal probability around dinner time and swipes through a deck of \
      \(loggedDeckSize) dishes they may have that day (diet, allergens, disliked categories, \
      availability; no more than 3 per category; dishes picked in the last 6 days held back, \
      dishes seen in the last 2 days last). Most sessions end at the first right swipe, as in the \
      food-menu app; some browse the whole deck; a few are left early.
      """
  }

  /// How to regenerate the files.
  private static func readmeRegenerating() -> String {
    return """
      ## Regenerating

      ```
      swift run menudeck sample --out Data
      ```

      or, through the test that guards these files:

      ```
      MENUDECK_WRITE_SAMPLE=1 swift test --filter DeckSimulationTests
      ```

      Change the tables or the generator, regenerate, and commit the code and the data together.
      """
  }
}
