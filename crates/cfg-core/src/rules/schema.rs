//! Problems found before any rule can run: the file does not parse, or does
//! not match its JSON Schema. They are produced by the parser and the schema
//! validator; they are registered here so they have codes and documentation.

declare_rule! {
    /// # The file is not valid TOML or JSON
    ///
    /// **What:** the parser stopped at this position: a missing quote, a stray
    /// character, a duplicate key, a comment in JSON, a trailing comma.
    ///
    /// **Why:** nothing else can be checked until the file parses; vLLM and the
    /// runner would refuse it too.
    ///
    /// **Example:** `max_num_seqs = = 256`
    ///
    /// **Fix:** correct the syntax at the caret. JSON allows no comments and no
    /// trailing commas; TOML strings need quotes.
    pub static SYNTAX_ERROR = { code: "CFG001", name: "syntax-error", severity: Error, parsed }
}

declare_rule! {
    /// # A key the schema does not know
    ///
    /// **What:** a key that is not part of the file's schema, usually a typo or
    /// a key in the wrong section.
    ///
    /// **Why:** a misspelt key is silently ignored by tools that read loosely,
    /// so the setting you meant never takes effect (and vLLM itself stops with
    /// `unrecognized arguments` for unknown flags).
    ///
    /// **Example:** `max_num_seq = 256` under `[batching]`.
    ///
    /// **Fix:** use the suggested name, or move the key to the section named in
    /// the help line.
    pub static UNKNOWN_KEY = { code: "CFG002", name: "unknown-key", severity: Error, parsed }
}

declare_rule! {
    /// # A required key is missing
    ///
    /// **What:** the schema requires this key and the file does not have it.
    ///
    /// **Why:** the tools cannot run without it (for example a load test
    /// without an `endpoint` has nothing to send requests to).
    ///
    /// **Example:** a settings.json with no `model`.
    ///
    /// **Fix:** add the key; the help line says what it means.
    pub static MISSING_KEY = { code: "CFG003", name: "missing-key", severity: Error, parsed }
}

declare_rule! {
    /// # A value of the wrong type
    ///
    /// **What:** a string where a number belongs, a table where a list belongs.
    ///
    /// **Why:** vLLM's argument parser and the runner reject it.
    ///
    /// **Example:** `max_model_len = "8192"` (a string) instead of `8192`.
    ///
    /// **Fix:** write the value in the type named by the message.
    pub static WRONG_TYPE = { code: "CFG004", name: "wrong-type", severity: Error, parsed }
}

declare_rule! {
    /// # A value outside its allowed range
    ///
    /// **What:** a number below its minimum or above its maximum, or a string or
    /// list of the wrong length.
    ///
    /// **Why:** vLLM validates these ranges at start-up (for example
    /// `gpu_memory_utilization` must be in (0, 1]) and refuses to start.
    ///
    /// **Example:** `gpu_memory_utilization = 1.2`
    ///
    /// **Fix:** use a value inside the range given in the message.
    pub static OUT_OF_RANGE = { code: "CFG005", name: "out-of-range", severity: Error, parsed }
}

declare_rule! {
    /// # A value that is not one of the allowed choices
    ///
    /// **What:** a value outside a closed set (dtype, scheduling policy, ...) or
    /// a string that does not have the required form.
    ///
    /// **Why:** vLLM's argument parser refuses it with `invalid choice`.
    ///
    /// **Example:** `dtype = "fp16"` (vLLM spells it `float16` or `half`).
    ///
    /// **Fix:** use one of the values listed in the help line.
    pub static INVALID_VALUE = { code: "CFG006", name: "invalid-value", severity: Error, parsed }
}
