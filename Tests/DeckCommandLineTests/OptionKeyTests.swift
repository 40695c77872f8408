import Testing

@testable import DeckCommandLine

@Suite struct OptionKeyTests {
  static let size = Option<Int>("size", short: "n", valueName: "n", help: "Cards per deck.")
  static let ratio = Option<Double>("ratio", help: "A share.")
  static let seed = Option<UInt64>("seed", help: "Random seed.")
  static let name = Option<String>("name", default: "ann", help: "A name.")
  static let quiet = Flag("quiet", short: "q", help: "Say less.")
  static let tag = Repeatable("tag", help: "A tag.")
  static let pair = Repeatable("pair", valueName: "key=value", help: "A pair.")

  /// Runs a root declaring every key above and hands its parsed arguments to `check`.
  static func parse(
    _ arguments: [String], _ check: @escaping @Sendable (ParsedArguments) throws -> Void
  ) -> (code: ExitCode, stderr: String) {
    let root = CommandSpec(
      name: "t", abstract: "",
      options: [size.spec, ratio.spec, seed.spec, name.spec, quiet.spec, tag.spec, pair.spec],
      run: { args, _ in
        try check(args)
        return .success
      })
    let (io, _, err) = CLIStreams.capturing()
    return (runCommand(root, arguments: arguments, io: io), err.text)
  }

  @Test func keysReadTypedValues() {
    let outcome = Self.parse([
      "-n", "7", "--ratio", "0.25", "--seed", "18446744073709551615", "-q", "--tag", "a",
      "--tag", "b", "--pair", "x=1",
    ]) { args throws in
      #expect(try args.value(Self.size) == 7)
      #expect(try args.value(Self.ratio) == 0.25)
      #expect(try args.value(Self.seed) == UInt64.max)
      #expect(args.value(Self.name) == "ann")
      #expect(!args.isGiven(Self.name))
      #expect(args.flag(Self.quiet))
      #expect(args.values(Self.tag) == ["a", "b"])
      #expect(try args.keyValuePairs(Self.pair).map { "\($0.key):\($0.value)" } == ["x:1"])
      #expect(args.declares(Self.size))
    }
    #expect(outcome.code == .success)
  }

  @Test(arguments: [
    (["--size", "x"], "invalid value 'x' for '--size'; expected a whole number like 10"),
    (["--ratio", "inf"], "invalid value 'inf' for '--ratio'; expected a number like 0.5"),
    // A whole number the type cannot hold is out of range, not "invalid".
    (
      ["--seed", "-1"],
      "'--seed': '-1' is out of range: give a whole number from 0 to 18446744073709551615"
    ),
    (
      ["--seed", "18446744073709551616"],
      "'--seed': '18446744073709551616' is out of range: give a whole number from 0 to "
        + "18446744073709551615"
    ),
    (
      ["--size", "-99999999999999999999"],
      "'--size': '-99999999999999999999' is out of range: give a whole number from "
        + "-9223372036854775808 to 9223372036854775807"
    ),
  ])
  func aValueTheTypeRejectsIsAUsageError(arguments: [String], message: String) {
    let outcome = Self.parse(arguments) { args in
      _ = try args.value(Self.size)
      _ = try args.value(Self.ratio)
      _ = try args.value(Self.seed)
    }
    #expect(outcome.code == .usage)
    #expect(outcome.stderr.hasPrefix("t: error: \(message)\n"))
  }

  @Test func withKeepsTheNameAndKindAndChangesTheWording() {
    let other = Self.size.with(help: "Deck size, for abandonment.")
    #expect(other.spec.name == "size")
    #expect(other.spec.kind == .value)
    #expect(other.spec.short == "n")
    #expect(other.spec.help == "Deck size, for abandonment.")
    let listed = Self.name.with {
      $0.defaultValue = "table"
      $0.choices = ["table", "json"]
    }
    #expect(listed.spec.defaultValue == "table")
    #expect(listed.spec.choices == ["table", "json"])
  }
}
