import DeckJobs
import Foundation
import Testing

@testable import MenuDeckCLI

/// `ease` through `menudeck deck` on the bundled config and data: the same bytes for every
/// `--jobs`, scores in full precision with `--exact-scores`, and the dish ceiling's error.
@Suite struct CLIEASETests {
  static let base = [
    "deck", "--config", "Config/menudeck.json", "--date", "2026-11-30", "--strategy", "ease",
    "--format", "jsonl",
  ]

  @Test("ease: the same decks for --jobs 1, 2 and 3")
  func jobs() {
    let one = CLIRun(Self.base + ["--jobs", "1"])
    #expect(one.code == .success, "\(one.stderr)")
    #expect(one.stdoutLines.count > 40)
    for jobs in ["2", "3"] {
      let other = CLIRun(Self.base + ["--jobs", jobs])
      #expect(other.code == .success)
      #expect(other.stdoutBytes == one.stdoutBytes, "--jobs \(jobs)")
    }
  }

  @Test("--exact-scores writes the shortest digits that read back; without it, 6 decimals")
  func exactScores() throws {
    let rounded = CLIRun(Self.base + ["--option", "lambda=3"])
    let exact = CLIRun(Self.base + ["--option", "lambda=3", "--exact-scores"])
    #expect(rounded.code == .success)
    #expect(exact.code == .success, "\(exact.stderr)")
    let a = try rounded.jsonLines()
    let b = try exact.jsonLines()
    #expect(a.count == b.count)
    var longer = 0
    for (x, y) in zip(a, b) {
      let cardsX = try #require(x["cards"] as? [[String: Any]])
      let cardsY = try #require(y["cards"] as? [[String: Any]])
      #expect(cardsX.map { $0["item"] as? String } == cardsY.map { $0["item"] as? String })
      for (p, q) in zip(cardsX, cardsY) {
        let r = try #require(p["score"] as? Double)
        let e = try #require(q["score"] as? Double)
        #expect(abs(r - e) <= 5e-7)
        if r != e { longer += 1 }
      }
    }
    // Most EASE scores need more than 6 decimals.
    #expect(longer > 100)
    // Each score's text is the shortest that reads back (Swift's own), without an exponent.
    // (Foundation's JSON parser above may miss the last bit: the texts are compared here.)
    let texts = exact.stdout.matches(of: /"score":(-?[0-9.]+)[,}]/).map { String($0.output.1) }
    #expect(texts.count == a.count * 10)
    for text in texts {
      let value = try #require(Double(text))
      // Swift's shortest digits, but for whole numbers (no ".0") and small ones (no exponent).
      if value != value.rounded() && abs(value) >= 1e-4 {
        #expect(value.description == text, "\(text)")
      }
    }
    let csv = CLIRun(
      Self.base.dropLast(2) + ["--format", "csv", "--option", "lambda=3", "--exact-scores"])
    #expect(csv.code == .success)
    let csvScores = csv.stdoutLines.dropFirst().filter { !$0.isEmpty }.map {
      String($0.split(separator: ",").last!)
    }
    #expect(csvScores == texts)
  }

  @Test("more dishes with swipes than max_dishes: exit 65 naming the option")
  func ceiling() {
    let r = CLIRun(Self.base + ["--option", "max_dishes=5"])
    #expect(r.code.rawValue == 65)
    #expect(r.stderr.contains("strategy 'ease' option 'max_dishes': '5' is not enough for the"))
    #expect(r.stderr.contains("give at least"))
    #expect(r.stdout.isEmpty)
  }
}
