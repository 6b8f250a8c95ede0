//! Words written for a POSIX shell, in the commands the binary prints or
//! submits.

/// `word` quoted for a POSIX shell.
pub fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// `word` as typed at a shell prompt: as it is where no character needs
/// quoting, else quoted.
pub fn quote_if_needed(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=,:@".contains(c));
    if plain {
        word.to_string()
    } else {
        quote(word)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_quoted_only_where_needed() {
        assert_eq!(quote_if_needed("/data/tables"), "/data/tables");
        assert_eq!(quote_if_needed("my tables"), "'my tables'");
        assert_eq!(quote_if_needed("it's"), r"'it'\''s'");
        assert_eq!(quote_if_needed(""), "''");
    }
}
