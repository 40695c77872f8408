import DeckBase

/// "1 error", "2 errors" (`TextLayout.plural`), for the summary lines the commands print.
func plural(_ n: Int, _ noun: String, _ plural: String? = nil) -> String {
  TextLayout.plural(n, noun, plural)
}
