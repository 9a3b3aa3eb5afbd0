//! Tokens and the lexer (LANGUAGE.md, "Lexical structure").
