// Package randrs generates random Spanner result sets for property and
// differential tests.
//
// ResultSet builds a *spannerpb.ResultSet with random columns and rows. Every
// value is in the exact wire form Cloud Spanner sends (see
// /work/shared/docs/protocol.md):
//
//   - BOOL as bool_value;
//   - INT64 and ENUM as decimal string_value (ENUM types carry proto_type_fqn);
//   - FLOAT64 and FLOAT32 as number_value (including -0 and the extremes of
//     the type; FLOAT32 values are exactly representable as float32), or the
//     string_value "NaN", "Infinity" or "-Infinity";
//   - STRING as valid UTF-8 (empty, ASCII, multi-byte, control characters
//     and occasionally long strings);
//   - BYTES and PROTO as standard padded base64 (PROTO types carry
//     proto_type_fqn);
//   - TIMESTAMP as RFC 3339 in UTC with "Z" and 0 to 9 fraction digits,
//     years 0001 to 9999;
//   - DATE as YYYY-MM-DD, years 0001 to 9999;
//   - NUMERIC in canonical decimal form: optional "-", up to 29 integer and
//     9 fraction digits, no leading zeros, no trailing fraction zeros;
//   - JSON as compact JSON text with sorted object keys (Spanner's normal
//     form);
//   - UUID in canonical lower-case 8-4-4-4-12 form;
//   - INTERVAL in Spanner's ISO 8601 form ("P1Y2M3DT4H5M6.5S", "P-1Y-2M",
//     "PT-4H-5M-6.000001S", "P0Y");
//   - ARRAY as list_value, with NULL elements and empty arrays;
//   - STRUCT as list_value with one element per field;
//   - NULL of any type as null_value.
//
// Cloud Spanner does not return STRUCT values as top-level columns, so by
// default STRUCT appears only as an array element type (ARRAY<STRUCT<...>>)
// and, nested, as a field type inside such structs. Options.TopLevelStructs
// allows top-level STRUCT columns for decoder robustness tests.
//
// All randomness comes from the *rand.Rand passed in, so a seed reproduces a
// result set exactly. Type and Value are exported for tests that want a
// single random type or a random value of a given type; decode.TypeName
// names a type in GoogleSQL syntax.
//
// The package allocates fresh messages on every call and keeps no state; the
// returned messages are owned by the caller.
package randrs
