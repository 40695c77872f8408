import DeckBase
import DeckCore
import DeckIO

/// What validate reports besides its rows: the diners' words no dish has, and the JSON document
/// of `--format json`, written with the one JSON writer.
extension ValidateJob {
  /// An error of the report, as the command line tells it: its exit code and diagnostic code
  /// (mapped where every layer's error is, `MenuDeckCLI/MenuDeck.swift`), its text, and its
  /// message without the location, with the location.
  package struct ReportedError: Sendable {
    package var exitCode: Int32
    package var code: String
    package var text: String
    package var message: String
    package var location: SourceLocation?

    package init(
      exitCode: Int32, code: String, text: String, message: String, location: SourceLocation?
    ) {
      self.exitCode = exitCode
      self.code = code
      self.text = text
      self.message = message
      self.location = location
    }
  }

  /// Diners' diets and allergens that no dish mentions: "peanuts" when the catalog says
  /// "peanut" would silently protect nobody.
  package static func vocabularyWarnings(users: [UserProfile], catalog: Catalog) -> [String] {
    var allergens = Set<String>()
    var diets = Set<String>()
    for item in catalog.items {
      allergens.formUnion(item.allergens)
      diets.formUnion(item.diets)
    }
    // Categories by their bytes, as the catalog and the deck rules tell them apart (`IDKey`).
    let categories = Set(catalog.categories.map { IDKey($0) })
    var out: [String] = []
    for user in users {
      for a in user.allergens where !allergens.contains(a) {
        out.append(
          "user '\(user.id)' avoids allergen '\(a)', which no dish lists"
            + didYouMean(a, allergens.sorted()) + "; check the spelling")
      }
      for d in user.diets where !diets.contains(d) {
        out.append(
          "user '\(user.id)' follows diet '\(d)', which no dish satisfies"
            + didYouMean(d, diets.sorted()) + "; their decks will be empty")
      }
      for c in user.dislikedCategories where !categories.contains(IDKey(c)) {
        out.append(
          "user '\(user.id)' dislikes category '\(c)', which the catalog does not have"
            + didYouMean(c, catalog.categories))
      }
    }
    return out
  }

  /// The JSON document of `--format json`: the run header, whether the inputs are valid and
  /// the exit code, the rows, the errors and the warnings.
  package static func report(
    _ found: Findings, errors: [ReportedError], exitCode: Int32, run: RunRecord
  ) -> String {
    var w = JSONWriter()
    w.beginObject()
    w.key("run")
    run.write(to: &w)
    w.field("valid", bool: errors.isEmpty)
    w.field("exit_code", int: Int(exitCode))
    w.key("inputs")
    w.arrayOfObjects(found.rows) { w, row in
      w.field("input", row.input)
      w.field("path", row.path)
      w.field("status", row.status)
    }
    w.key("errors")
    w.arrayOfObjects(errors) { w, error in
      w.field("level", "error")
      w.field("code", error.code)
      w.field("exit_code", int: Int(error.exitCode))
      w.field("message", error.message)
      write(error.location, to: &w, column: true)
    }
    w.key("warnings")
    w.arrayOfObjects(found.warnings) { w, warning in
      w.field("level", "warning")
      w.field("code", warning.code)
      w.field("message", warning.message)
      write(warning.location, to: &w, column: false)
    }
    w.endObject()
    w.layout("\n")
    return w.text
  }

  /// A location's fields, null for the parts it does not have (a line of 0 is the whole file).
  static func write(_ location: SourceLocation?, to w: inout JSONWriter, column: Bool) {
    w.field("file", location?.file)
    w.field("line", int: location.flatMap { $0.line > 0 ? $0.line : nil })
    guard column else { return }
    w.field("column", int: location?.column)
    w.field("field", location?.field)
  }
}
