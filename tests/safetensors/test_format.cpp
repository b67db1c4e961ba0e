// The safetensors format without tensors: the validation rules, one
// hand-built malformed file each, the header writer, the dtype table.
//
// Why this file is long: one malformed file per validation rule.
#include <gtest/gtest.h>

#include <flash_powder/safetensors/format.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/expect_error.h"
#include "support/truth.h"

namespace {

using fp_test::truth;

namespace st = fp::safetensors;

/*
#|PYTHON_GLOBAL
import struct
import safetensors
import safetensors.torch

def framed(header, data_size=0):
    raw = header.encode()
    return struct.pack("<Q", len(raw)) + raw + b"\0" * data_size

def python_rejects(header, data_size):
    try:
        safetensors.deserialize(framed(header, data_size))
        return False
    except Exception:
        return True
*/

/// A file: the 8-byte length, `header`, then `data_size` zero bytes.
std::vector<std::byte> framed(std::string_view header, std::size_t data_size = 0) {
  std::vector<std::byte> file(st::prefix_size + header.size() + data_size, std::byte{0});
  const std::uint64_t length = header.size();
  std::memcpy(file.data(), &length, sizeof length);
  std::memcpy(file.data() + st::prefix_size, header.data(), header.size());
  return file;
}

/// A file whose prefix claims `length` bytes of header, followed by `rest`.
std::vector<std::byte> with_length(std::uint64_t length, std::string_view rest) {
  std::vector<std::byte> file(st::prefix_size + rest.size());
  std::memcpy(file.data(), &length, sizeof length);
  std::memcpy(file.data() + st::prefix_size, rest.data(), rest.size());
  return file;
}

st::Header parsed(std::string_view header, std::size_t data_size = 0) {
  return st::parse(framed(header, data_size), "test.safetensors");
}

// --- what a valid file looks like ------------------------------------------------

TEST(SafetensorsFormat, ParsesTheTensorsInHeaderOrder) {
  const st::Header header = parsed(R"({"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]},)"
                                   R"("a":{"dtype":"BF16","shape":[1,2],"data_offsets":[0,4]}})",
                                   12);
  ASSERT_EQ(header.tensors.size(), 2u);
  EXPECT_EQ(header.tensors[0].name, "b");
  EXPECT_EQ(header.tensors[0].dtype, st::FileDType::F32);
  EXPECT_EQ(header.tensors[0].shape, (std::vector<std::int64_t>{2}));
  EXPECT_EQ(header.tensors[0].begin, 4u);
  EXPECT_EQ(header.tensors[0].end, 12u);
  EXPECT_EQ(header.tensors[1].name, "a");
  EXPECT_EQ(header.tensors[1].shape, (std::vector<std::int64_t>{1, 2}));
  EXPECT_FALSE(header.metadata.has_value());
  EXPECT_EQ(header.data_start, 8u + 111u);  // the length of the header above
  EXPECT_EQ(header.find("a"), &header.tensors[1]);
  EXPECT_EQ(header.find("c"), nullptr);
}

TEST(SafetensorsFormat, AcceptsWhitespacePaddingOnBothSides) {
  const st::Header header =
      parsed(" \n\t\r  {\"w\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[0,1]}}      ", 1);
  ASSERT_EQ(header.tensors.size(), 1u);
  EXPECT_TRUE(header.tensors[0].shape.empty());
}

TEST(SafetensorsFormat, ReadsMetadataAndIgnoresUnknownFieldsAsTheReferenceDoes) {
  const st::Header header = parsed(
      R"({"__metadata__":{"format":"pt","note":"\u00e9\n"},)"
      R"("w":{"extra":[{"deep":[1,{"x":null}]}],"dtype":"I8","shape":[3],"data_offsets":[0,3],"more":true}})",
      3);
  ASSERT_TRUE(header.metadata.has_value());
  EXPECT_EQ(*header.metadata, (st::Metadata{{"format", "pt"}, {"note", "\xc3\xa9\n"}}));
  ASSERT_EQ(header.tensors.size(), 1u);
  EXPECT_EQ(header.tensors[0].shape, (std::vector<std::int64_t>{3}));
}

TEST(SafetensorsFormat, AcceptsEmptyFilesAndZeroSizeTensors) {
  EXPECT_TRUE(parsed("{}").tensors.empty());
  EXPECT_TRUE(parsed(R"({"__metadata__":{}})").metadata->empty());
  const st::Header header = parsed(R"({"a":{"dtype":"F32","shape":[0,3],"data_offsets":[0,0]},)"
                                   R"("b":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},)"
                                   R"("c":{"dtype":"F16","shape":[0],"data_offsets":[8,8]}})",
                                   8);
  EXPECT_EQ(header.tensors.size(), 3u);
}

TEST(SafetensorsFormat, AcceptsDtypesTorchLacks) {
  // F6 is a valid file dtype; only turning it into a tensor fails (test_load).
  const st::Header header =
      parsed(R"({"w":{"dtype":"F6_E2M3","shape":[4],"data_offsets":[0,3]}})", 3);
  EXPECT_EQ(header.tensors[0].dtype, st::FileDType::F6_E2M3);
}

// --- the length prefix --------------------------------------------------------------

TEST(SafetensorsFormat, RejectsAFileTooShortForTheLength) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "fp::safetensors: test.safetensors: the file has 7 bytes, too few for the 8-byte header "
      "length",
      st::parse(std::vector<std::byte>(7), "test.safetensors"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the file has 0 bytes", st::parse({}, "x"));
}

TEST(SafetensorsFormat, RejectsAHeaderOverTheLimit) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "the header length 100000001 exceeds the limit of 100000000 bytes",
                  st::parse(with_length(100'000'001, "{}")));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header length 18446744073709551615 exceeds the limit",
                  st::parse(with_length(~std::uint64_t{0}, "{}")));
}

TEST(SafetensorsFormat, RejectsAHeaderLongerThanTheFile) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "the header length 3 exceeds the 2 bytes that follow it in the file",
                  st::parse(with_length(3, "{}")));
}

TEST(SafetensorsFormat, ReadsTheLengthAndTheHeaderSeparately) {
  // What fp::safetensors::load does with a file it reads in pieces.
  const auto file = framed(R"({"w":{"dtype":"U8","shape":[2],"data_offsets":[0,2]}})", 2);
  const std::uint64_t length = st::header_length(file, file.size(), "f");
  EXPECT_EQ(length, file.size() - 10);
  const std::string_view json(reinterpret_cast<const char*>(file.data()) + 8, length);
  EXPECT_EQ(st::parse_header(json, 2, "f").tensors.size(), 1u);
  EXPECT_EQ(st::parse_header(json, 2, "f").data_start, 8 + length);
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::safetensors: f: the file has 4 bytes, too few for the 8-byte header length",
                  st::header_length(std::span(file).first(4), 4, "f"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::safetensors: f: the tensors cover 2 bytes of data but the file has 3",
                  st::parse_header(json, 3, "f"));
}

// --- the JSON -----------------------------------------------------------------------

TEST(SafetensorsFormat, RejectsAHeaderThatIsNotUtf8) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid UTF-8", parsed("{\"\xff\":1}"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid UTF-8",
                  parsed("{\"\xc0\xaf\":1}"));  // overlong '/'
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid UTF-8",
                  parsed("{\"\xed\xa0\x80\":1}"));  // a surrogate
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid UTF-8",
                  parsed("{\"\xf4\x90\x80\x80\":1}"));  // > U+10FFFF
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid UTF-8",
                  parsed("{\"\xe2\x82\":1}"));  // cut short
}

TEST(SafetensorsFormat, RejectsNulBytesThatTheJsonParserWouldTakeForTheEnd) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "the header holds a NUL byte at offset 2, which JSON does not allow",
                  parsed(std::string("{}\0junk", 7)));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header holds a NUL byte at offset 0",
                  parsed(std::string("\0{}", 3)));
}

TEST(SafetensorsFormat, RejectsAHeaderThatIsNotAnObject) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not a JSON object", parsed("[]"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not a JSON object", parsed("\"text\""));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not a JSON object", parsed("   "));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not a JSON object",
                  parsed("\xef\xbb\xbf{}"));  // a BOM
}

TEST(SafetensorsFormat, RejectsInvalidJson) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid JSON", parsed("{"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid JSON", parsed("{} {}"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid JSON",
                  parsed(R"({"__metadata__":{},})"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid JSON", parsed("{/* comment */}"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the header is not valid JSON",
                  parsed(R"({"\ud800":1})"));  // lone surrogate
}

TEST(SafetensorsFormat, RejectsNestingDeeperThanTheReferenceParserAllows) {
  /*
  #|PYTHON
  def nested(depth):
      return '{"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":' + "[" * depth + "]" * depth + "}}"
  deepest = max(d for d in range(1, 140) if not python_rejects(nested(d), 1))
  */
  const auto nested = [](int depth) {
    return R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":)" + std::string(depth, '[') +
           std::string(depth, ']') + "}}";
  };
  const int deepest = 125;  // #PYTHON deepest
  EXPECT_NO_THROW(parsed(nested(deepest), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "the header nests objects and lists deeper than 127 levels",
                  parsed(nested(deepest + 1), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "deeper than 127 levels",
                  parsed(R"({"w":{"x":)" + std::string(100'000, '[')));
}

TEST(SafetensorsFormat, RejectsDuplicateKeysAtEveryLevel) {
  constexpr const char* entry = R"({"dtype":"U8","shape":[1],"data_offsets":[0,1]})";
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::safetensors: test.safetensors: the key \"w\" appears twice in the header",
                  parsed(std::string(R"({"w":)") + entry + R"(,"w":)" + entry + "}", 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the key \"__metadata__\" appears twice in the header",
                  parsed(R"({"__metadata__":{},"__metadata__":{}})"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "\"__metadata__\": the key \"k\" appears twice",
                  parsed(R"({"__metadata__":{"k":"1","k":"2"}})"));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format, "tensor \"w\": the field \"dtype\" appears twice",
      parsed(R"({"w":{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format, "tensor \"w\": the field \"x\" appears twice",
      parsed(R"({"w":{"x":1,"x":2,"dtype":"U8","shape":[1],"data_offsets":[0,1]}})", 1));
}

// --- __metadata__ ---------------------------------------------------------------------

TEST(SafetensorsFormat, RejectsMetadataThatIsNotStringToString) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "\"__metadata__\" must be an object mapping strings to strings, not a list",
                  parsed(R"({"__metadata__":[]})"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "\"__metadata__\" must be an object mapping strings to strings, not null",
                  parsed(R"({"__metadata__":null})"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "\"__metadata__\": the value of \"k\" must be a string, not the number 1",
                  parsed(R"({"__metadata__":{"k":1}})"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "\"__metadata__\": the value of \"k\" must be a string, not an object",
                  parsed(R"({"__metadata__":{"k":{}}})"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "\"__metadata__\": the value of \"k\" must be a string, not null",
                  parsed(R"({"__metadata__":{"k":null}})"));
}

// --- one tensor entry ---------------------------------------------------------------------

TEST(SafetensorsFormat, RejectsAnEntryThatIsNotAnObject) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": the entry must be an object with dtype, shape and data_offsets, not the "
      "number 5",
      parsed(R"({"w":5})"));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": the entry must be an object with dtype, shape and data_offsets, not a list",
      parsed(R"({"w":[]})"));
}

TEST(SafetensorsFormat, RejectsAnEntryMissingAField) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "tensor \"w\": the entry lacks \"dtype\"",
                  parsed(R"({"w":{"shape":[1],"data_offsets":[0,1]}})", 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "tensor \"w\": the entry lacks \"shape\"",
                  parsed(R"({"w":{"dtype":"U8","data_offsets":[0,1]}})", 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "tensor \"w\": the entry lacks \"data_offsets\"",
                  parsed(R"({"w":{"dtype":"U8","shape":[1]}})", 1));
}

TEST(SafetensorsFormat, RejectsABadDtype) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "tensor \"w\": unknown dtype \"F7\"",
                  parsed(R"({"w":{"dtype":"F7","shape":[1],"data_offsets":[0,1]}})", 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"w\": unknown dtype \"f32\"",  // names are case-sensitive
                  parsed(R"({"w":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}})", 4));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"w\": \"dtype\" must be a string, not the number 3",
                  parsed(R"({"w":{"dtype":3,"shape":[1],"data_offsets":[0,1]}})", 1));
}

TEST(SafetensorsFormat, RejectsAShapeThatIsNotAListOfNonNegativeIntegers) {
  const auto with_shape = [](std::string shape) {
    return R"({"w":{"dtype":"U8","shape":)" + shape + R"(,"data_offsets":[0,1]}})";
  };
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": \"shape\" must be a list of non-negative integers, not the number 1",
      parsed(with_shape("1"), 1));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": \"shape\" must be a list of non-negative integers; it holds the number -1",
      parsed(with_shape("[-1]"), 1));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": \"shape\" must be a list of non-negative integers; it holds the number 1.0",
      parsed(with_shape("[1.0]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "it holds the number 1e0", parsed(with_shape("[1e0]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "it holds the number -0", parsed(with_shape("[-0]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "it holds a string", parsed(with_shape("[\"1\"]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "it holds a list", parsed(with_shape("[[1]]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "it holds null", parsed(with_shape("[null]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"w\": the dimension 9223372036854775808 in \"shape\" does not fit int64",
                  parsed(with_shape("[9223372036854775808,0]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "it holds the number 18446744073709551616",  // past u64: a float to the parser
                  parsed(with_shape("[18446744073709551616]"), 1));
}

TEST(SafetensorsFormat, RejectsOffsetsThatAreNotTwoNonNegativeIntegers) {
  const auto with_offsets = [](std::string offsets) {
    return R"({"w":{"dtype":"U8","shape":[1],"data_offsets":)" + offsets + "}}";
  };
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": \"data_offsets\" must be a list of two non-negative integers, not a string",
      parsed(with_offsets("\"0,1\""), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"w\": \"data_offsets\" must hold two integers, not 1",
                  parsed(with_offsets("[1]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"w\": \"data_offsets\" must hold two integers, not 3",
                  parsed(with_offsets("[0,1,1]"), 1));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": \"data_offsets\" must be a list of two non-negative integers; it holds the "
      "number -1",
      parsed(with_offsets("[-1,0]"), 1));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "it holds the number 0.5",
                  parsed(with_offsets("[0.5,1]"), 1));
}

// --- offsets and sizes ------------------------------------------------------------------------

TEST(SafetensorsFormat, RejectsOffsetsThatEndBeforeTheyBegin) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "tensor \"w\": data_offsets [1, 0] end before they begin",
                  parsed(R"({"w":{"dtype":"U8","shape":[0],"data_offsets":[1,0]}})", 1));
}

TEST(SafetensorsFormat, RejectsOffsetsPastTheEndOfTheData) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"w\": data_offsets [0, 8] reach past the end of the data (4 bytes)",
                  parsed(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 4));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": data_offsets [0, 18446744073709551615] reach past the end",
      parsed(R"({"w":{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551615]}})", 1));
}

TEST(SafetensorsFormat, RejectsASizeThatDoesNotMatchTheShape) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": shape [2, 3] of F32 needs 24 bytes but data_offsets [0, 20] hold 20",
      parsed(R"({"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}})", 20));
}

TEST(SafetensorsFormat, RejectsSizesThatOverflow) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": shape [4294967296, 4294967296] of U8: the element count overflows 64 bits",
      parsed(R"({"w":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}})"));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"w\": shape [2305843009213693952] of F64: the byte size overflows 64 bits",
      parsed(R"({"w":{"dtype":"F64","shape":[2305843009213693952],"data_offsets":[0,0]}})"));
  // A zero dimension makes the count 0 whatever the others are.
  EXPECT_NO_THROW(
      parsed(R"({"w":{"dtype":"F64","shape":[0,9223372036854775807],"data_offsets":[0,0]}})"));
}

TEST(SafetensorsFormat, RejectsSubByteTensorsThatDoNotFillWholeBytes) {
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"w\": shape [3] of F4 does not fill whole bytes (12 bits)",
                  parsed(R"({"w":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2));
  EXPECT_NO_THROW(parsed(R"({"w":{"dtype":"F4","shape":[4],"data_offsets":[0,2]}})", 2));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "of F6_E3M2 does not fill whole bytes (18 bits)",
                  parsed(R"({"w":{"dtype":"F6_E3M2","shape":[3],"data_offsets":[0,2]}})", 2));
}

// --- the tensors together ----------------------------------------------------------------------

TEST(SafetensorsFormat, RejectsAHoleBetweenTensors) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"b\": starts at byte 8 but tensor \"a\" ends at byte 4: a hole in the data",
      parsed(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[8,12]}})",
             12));
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"a\": starts at byte 4 but the data starts at byte 0: a hole in the data",
      parsed(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8));
}

TEST(SafetensorsFormat, RejectsOverlappingTensors) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "tensor \"b\": starts at byte 2 but tensor \"a\" ends at byte 4: the tensors overlap",
      parsed(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
             R"("b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
             6));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the tensors overlap",  // the same bytes twice
                  parsed(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                         R"("b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})",
                         4));
}

TEST(SafetensorsFormat, RejectsBytesLeftOverAfterTheTensors) {
  EXPECT_FP_ERROR(
      fp::ErrorCode::Format,
      "fp::safetensors: test.safetensors: the tensors cover 4 bytes of data but the file has 5: "
      "bytes left over at the end",
      parsed(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", 5));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "the tensors cover 0 bytes of data but the file has 1",
                  parsed("{}", 1));
}

TEST(SafetensorsFormat, AcceptsTensorsListedInAnyOrder) {
  const st::Header header = parsed(R"({"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                                   R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
                                   2);
  EXPECT_EQ(header.tensors[0].name, "b");
}

TEST(SafetensorsFormat, MessagesQuoteHostileNamesSafely) {
  const std::string long_name(300, 'x');
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"" + std::string(200, 'x') + "\"... (300 bytes): the entry lacks",
                  parsed(R"({")" + long_name + R"(":{}})"));
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "tensor \"a\\x0ab\\\"\": the entry lacks",
                  parsed(R"({"a\nb\"":{}})"));
}

// --- at least as strict as the reference ---------------------------------------------------

TEST(SafetensorsFormat, RejectsEveryHeaderPythonRejects) {
  /*
  #|PYTHON
  entry = '{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]}'
  cases = [
      ('[]', 0), ('"x"', 0), ('{', 0), ('{} {}', 0), ('\ufeff{}', 0),
      ('{"w":5}', 0), ('{"w":{"shape":[1],"data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"F32","data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"F32","shape":[1]}}', 4),
      ('{"w":{"dtype":"F7","shape":[1],"data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"F32","shape":1,"data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"F32","shape":[1],"data_offsets":[0]}}', 4),
      ('{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4,4]}}', 4),
      ('{"w":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}}', 4),
      ('{"w":{"dtype":"F32","shape":[1],"data_offsets":[0,8]}}', 4),
      ('{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}}', 4),
      ('{"w":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}}', 0),
      ('{"w":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}}', 2),
      ('{"a":' + entry % (0, 4) + ',"b":' + entry % (8, 12) + '}', 12),
      ('{"a":' + entry % (4, 8) + '}', 8),
      ('{"a":' + entry % (0, 4) + ',"b":' + entry % (2, 6) + '}', 6),
      ('{"a":' + entry % (0, 4) + '}', 5),
      ('{"__metadata__":{"k":1}}', 0), ('{"__metadata__":[]}', 0),
      # Python accepts these; flash_powder is stricter:
      ('{"a":' + entry % (0, 4) + ',"a":' + entry % (0, 4) + '}', 4),
      ('{"__metadata__":null}', 0),
      ('{"__metadata__":{"k":"1","k":"2"}}', 0),
      ('{"w":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}', 4),
  ]
  */
  // One literal: python_truth compares it whole, so clang-format must not split it.
  // clang-format off
  const std::vector<std::string> headers = truth<std::vector<std::string>>("[h for h, _ in cases]");
  // clang-format on
  const std::vector<int> data_sizes = truth<std::vector<int>>("[n for _, n in cases]");
  const std::vector<bool> python_rejects =
      truth<std::vector<bool>>("[python_rejects(h, n) for h, n in cases]");
  ASSERT_EQ(headers.size(), data_sizes.size());
  ASSERT_EQ(headers.size(), python_rejects.size());
  int stricter_than_python = 0;
  for (std::size_t i = 0; i < headers.size(); ++i) {
    EXPECT_THROW(parsed(headers[i], static_cast<std::size_t>(data_sizes[i])), fp::Error)
        << headers[i];
    if (!python_rejects[i]) ++stricter_than_python;
  }
  // Python accepts a repeated tensor or metadata key (it keeps the last) and a null
  // __metadata__; it rejects a repeated field inside an entry, as flash_powder does.
  EXPECT_EQ(stricter_than_python, 3);  // #PYTHON sum(not python_rejects(h, n) for h, n in cases)
}

TEST(SafetensorsFormat, ParsesEverySeedAndRegressionOfTheFuzzerOrRejectsItCleanly) {
  int files = 0;
  for (const char* folder : {"corpus/safetensors", "regressions"}) {
    const std::filesystem::path path = std::filesystem::path(FP_FUZZ_DIR) / folder;
    if (!std::filesystem::exists(path)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(path)) {
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), {});
      try {
        st::parse(std::as_bytes(std::span(bytes.data(), bytes.size())), entry.path().string());
      } catch (const fp::Error&) {
      }
      ++files;
    }
  }
  EXPECT_GT(files, 10);
}

// --- writing headers -------------------------------------------------------------------------

TEST(SafetensorsFormat, WritesHeadersAsPythonDoes) {
  /*
  #|PYTHON
  import torch
  data = safetensors.torch.save({"w": torch.zeros(2, 3), "b": torch.zeros(0, dtype=torch.int8)},
                                metadata={"format": "pt"})
  length = struct.unpack("<Q", data[:8])[0]
  header = data[8:8 + length].decode()
  */
  const std::vector<st::TensorInfo> tensors = {
      {"w", st::FileDType::F32, {2, 3}, 0, 24},
      {"b", st::FileDType::I8, {0}, 24, 24},
  };
  const st::Metadata metadata = {{"format", "pt"}};
  const std::string written = st::serialize_header(tensors, &metadata);
  // One literal: python_truth compares it whole, so clang-format must not split it.
  // clang-format off
  EXPECT_EQ(
      written,
      "{\"__metadata__\":{\"format\":\"pt\"},\"w\":{\"dtype\":\"F32\",\"shape\":[2,3],\"data_offsets\":[0,24]},\"b\":{\"dtype\":\"I8\",\"shape\":[0],\"data_offsets\":[24,24]}}  ");  // #PYTHON header
  // clang-format on
  EXPECT_EQ(written.size() % 8, 0u);
}

TEST(SafetensorsFormat, EscapesNamesAsPythonDoes) {
  /*
  #|PYTHON
  import torch
  name = "".join(chr(c) for c in range(0, 0x20)) + "\"\\/\x7f\u00e9\u4e2d\U0001F600"
  data = safetensors.torch.save({name: torch.zeros(1, dtype=torch.uint8)}, metadata={name: name})
  length = struct.unpack("<Q", data[:8])[0]
  header = data[8:8 + length].decode()
  */
  // One literal: python_truth compares it whole, so clang-format must not split it.
  // clang-format off
  static constexpr char name_text[] =
      "\000\001\002\003\004\005\006\007\010\t\n\013\014\r\016\017\020\021\022\023\024\025\026\027\030\031\032\033\034\035\036\037\"\\/\177é中😀";  // #PYTHON name
  // clang-format on
  const std::string name(name_text, sizeof name_text - 1);
  const std::vector<st::TensorInfo> tensors = {{name, st::FileDType::U8, {1}, 0, 1}};
  const st::Metadata metadata = {{name, name}};
  // One literal: python_truth compares it whole, so clang-format must not split it.
  // clang-format off
  EXPECT_EQ(
      st::serialize_header(tensors, &metadata),
      "{\"__metadata__\":{\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\/\177é中😀\":\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\/\177é中😀\"},\"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\\"\\\\/\177é中😀\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}    ");  // #PYTHON header
  // clang-format on
}

TEST(SafetensorsFormat, RefusesToWriteWhatNoReaderCouldRead) {
  const std::vector<st::TensorInfo> bad_utf8 = {{"\xff", st::FileDType::U8, {1}, 0, 1}};
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "fp::safetensors: save: tensor \"\xff\": the name is not valid UTF-8",
                  st::serialize_header(bad_utf8, nullptr));
  const std::vector<st::TensorInfo> reserved = {{"__metadata__", st::FileDType::U8, {1}, 0, 1}};
  EXPECT_FP_ERROR(fp::ErrorCode::Format,
                  "tensor \"__metadata__\": the name is reserved for the file's metadata",
                  st::serialize_header(reserved, nullptr));
  const st::Metadata metadata = {{"k", "\xc3"}};
  EXPECT_FP_ERROR(fp::ErrorCode::Format, "metadata \"k\": the text is not valid UTF-8",
                  st::serialize_header({}, &metadata));
}

// --- dtypes ------------------------------------------------------------------------------------

TEST(SafetensorsFormat, NamesEveryDtypeAsPythonDoes) {
  /*
  #|PYTHON
  import json
  names = {}
  for dtype in [torch.bool, torch.uint8, torch.int8, torch.int16, torch.uint16, torch.float16,
                torch.bfloat16, torch.int32, torch.uint32, torch.float32, torch.float64,
                torch.int64, torch.uint64, torch.complex64, torch.float8_e4m3fn,
                torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
                torch.float8_e8m0fnu, torch.float4_e2m1fn_x2]:
      t = torch.zeros(16, dtype=torch.uint8).view(dtype)
      data = safetensors.torch.save({"t": t})
      length = struct.unpack("<Q", data[:8])[0]
      names[dtype] = json.loads(data[8:8 + length])["t"]["dtype"]
  */
  const std::vector<fp::DType> dtypes = truth<std::vector<fp::DType>>("list(names)");
  const std::vector<std::string> expected = truth<std::vector<std::string>>("list(names.values())");
  ASSERT_EQ(dtypes.size(), expected.size());
  for (std::size_t i = 0; i < dtypes.size(); ++i) {
    const auto file_dtype = st::to_file_dtype(dtypes[i]);
    ASSERT_TRUE(file_dtype.has_value()) << fp::name(dtypes[i]);
    EXPECT_EQ(st::name(*file_dtype), expected[i]);
    EXPECT_EQ(st::parse_file_dtype(expected[i]), file_dtype);
    EXPECT_EQ(st::to_dtype(*file_dtype), dtypes[i]);
  }
  EXPECT_FALSE(st::to_file_dtype(fp::DType::C128).has_value());
  EXPECT_FALSE(st::to_file_dtype(fp::DType::C32).has_value());
  EXPECT_FALSE(st::to_dtype(st::FileDType::F6_E2M3).has_value());
  EXPECT_EQ(st::bit_size(st::FileDType::F4), 4u);
  EXPECT_EQ(st::bit_size(st::FileDType::F6_E3M2), 6u);
  EXPECT_EQ(st::bit_size(st::FileDType::C64), 64u);
  EXPECT_FALSE(st::parse_file_dtype("F32 ").has_value());
}

TEST(SafetensorsFormat, ComputesByteSizesWithOverflowChecks) {
  EXPECT_EQ(st::byte_size(st::FileDType::F32, std::vector<std::int64_t>{2, 3}), 24u);
  EXPECT_EQ(st::byte_size(st::FileDType::F4, std::vector<std::int64_t>{2, 3}), 3u);
  EXPECT_EQ(st::byte_size(st::FileDType::F4, std::vector<std::int64_t>{3}), std::nullopt);
  EXPECT_EQ(st::byte_size(st::FileDType::U8, std::vector<std::int64_t>{-1}), std::nullopt);
  EXPECT_EQ(st::byte_size(st::FileDType::F64, std::vector<std::int64_t>{1LL << 61}), std::nullopt);
  EXPECT_EQ(st::byte_size(st::FileDType::F64, std::vector<std::int64_t>{}), 8u);
}

}  // namespace
