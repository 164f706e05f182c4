#pragma once
// Loads TASO's rule collection (graph_subst.pb) into TasoRules.
//
// Why DynamicMessage rather than protoc-generated code: the schema is six small messages, the
// library stays header-only (no generated .pb.cc to build and install), and the real protobuf
// parser still decodes the wire format — we only describe the messages, in code, as a
// FileDescriptorProto. The cost is a link dependency on libprotobuf, which the CMake target
// autograph::taso carries; headers that do not load rule files never include this one.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/message.h>

#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "autograph/rules/taso_rule.hpp"

namespace autograph::rules {

namespace detail {

/// TASO's rules.proto (package GraphSubst), described in code.
inline google::protobuf::FileDescriptorProto taso_schema() {
  using google::protobuf::FieldDescriptorProto;
  google::protobuf::FileDescriptorProto file;
  file.set_name("taso_rules.proto");
  file.set_package("GraphSubst");
  file.set_syntax("proto2");
  auto message = [&](char const* name, std::initializer_list<std::tuple<char const*, int, FieldDescriptorProto::Type, char const*, bool>> fields) {
    auto* m = file.add_message_type();
    m->set_name(name);
    for (auto const& [fname, number, type, type_name, repeated] : fields) {
      auto* f = m->add_field();
      f->set_name(fname);
      f->set_number(number);
      f->set_type(type);
      if (type_name) f->set_type_name(type_name);
      f->set_label(repeated ? FieldDescriptorProto::LABEL_REPEATED : FieldDescriptorProto::LABEL_REQUIRED);
    }
  };
  constexpr auto i32 = FieldDescriptorProto::TYPE_INT32;
  constexpr auto msg = FieldDescriptorProto::TYPE_MESSAGE;
  message("Parameter", {{"key", 1, i32, nullptr, false}, {"value", 2, i32, nullptr, false}});
  message("Tensor", {{"opId", 1, i32, nullptr, false}, {"tsId", 2, i32, nullptr, false}});
  message("Operator", {{"type", 1, i32, nullptr, false}, {"input", 2, msg, ".GraphSubst.Tensor", true}, {"para", 3, msg, ".GraphSubst.Parameter", true}});
  message("MapOutput", {{"srcOpId", 1, i32, nullptr, false}, {"dstOpId", 2, i32, nullptr, false}, {"srcTsId", 3, i32, nullptr, false}, {"dstTsId", 4, i32, nullptr, false}});
  message("Rule", {{"srcOp", 1, msg, ".GraphSubst.Operator", true}, {"dstOp", 2, msg, ".GraphSubst.Operator", true}, {"mappedOutput", 3, msg, ".GraphSubst.MapOutput", true}});
  message("RuleCollection", {{"rule", 1, msg, ".GraphSubst.Rule", true}});
  return file;
}

inline int get_int(google::protobuf::Message const& m, char const* field) {
  auto const* f = m.GetDescriptor()->FindFieldByName(field);
  return m.GetReflection()->GetInt32(m, f);
}
template <class F>
void for_each_repeated(google::protobuf::Message const& m, char const* field, F f) {
  auto const* d = m.GetDescriptor()->FindFieldByName(field);
  auto const* r = m.GetReflection();
  for (int i = 0; i < r->FieldSize(m, d); ++i) f(r->GetRepeatedMessage(m, d, i));
}

inline TasoOp taso_op(google::protobuf::Message const& m) {
  TasoOp op;
  op.type = get_int(m, "type");
  for_each_repeated(m, "input", [&](auto const& t) { op.inputs.push_back({get_int(t, "opId"), get_int(t, "tsId")}); });
  for_each_repeated(m, "para", [&](auto const& p) { op.params.emplace_back(get_int(p, "key"), get_int(p, "value")); });
  return op;
}

}  // namespace detail

/// Parses a serialized GraphSubst.RuleCollection into rule data.
/// @throws Error when the bytes are not a valid rule collection.
inline std::vector<TasoRuleData> parse_taso_rules(std::string const& bytes) {
  google::protobuf::DescriptorPool pool;
  if (!pool.BuildFile(detail::taso_schema())) throw Error("TASO rule schema failed to build");
  google::protobuf::DynamicMessageFactory factory(&pool);
  auto const* desc = pool.FindMessageTypeByName("GraphSubst.RuleCollection");
  std::unique_ptr<google::protobuf::Message> collection(factory.GetPrototype(desc)->New());
  if (!collection->ParseFromString(bytes)) throw Error("not a TASO rule collection (protobuf GraphSubst.RuleCollection): parse failed");
  std::vector<TasoRuleData> rules;
  detail::for_each_repeated(*collection, "rule", [&](auto const& r) {
    TasoRuleData d;
    detail::for_each_repeated(r, "srcOp", [&](auto const& op) { d.src.push_back(detail::taso_op(op)); });
    detail::for_each_repeated(r, "dstOp", [&](auto const& op) { d.dst.push_back(detail::taso_op(op)); });
    detail::for_each_repeated(r, "mappedOutput", [&](auto const& mo) {
      d.mapped.push_back({detail::get_int(mo, "srcOpId"), detail::get_int(mo, "dstOpId"), detail::get_int(mo, "srcTsId"), detail::get_int(mo, "dstTsId")});
    });
    rules.push_back(std::move(d));
  });
  return rules;
}

/// Loads a TASO rule file; rule i is named "taso-NNN" (its index in the file).
/// @throws Error naming the file when it cannot be read or parsed, holds no rules, or has a
/// rule it cannot map.
template <class Set = BuiltinOps>
std::vector<TasoRule<Set>> load_taso_rules(std::filesystem::path const& file, TasoOptions options = {}) {
  // A directory opens as a stream on Linux and reads as nothing; an empty file parses as a
  // collection of zero rules. Either would be a search with no TASO rules that looks like one
  // with them, so both are errors.
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) throw Error("TASO rule file " + file.string() + " is a directory");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error("cannot open TASO rule file " + file.string());
  std::stringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw Error("cannot read TASO rule file " + file.string());
  if (bytes.str().empty()) throw Error("TASO rule file " + file.string() + " is empty");
  std::vector<TasoRuleData> data;
  try {
    data = parse_taso_rules(bytes.str());
  } catch (Error const& e) {
    throw Error(file.string() + ": " + e.what());
  }
  if (data.empty()) throw Error(file.string() + ": holds no rules (a TASO rule collection has at least one)");
  std::vector<TasoRule<Set>> rules;
  rules.reserve(data.size());
  for (std::size_t i = 0; i < data.size(); ++i) {
    std::ostringstream name;
    name << "taso-" << std::setw(3) << std::setfill('0') << i;
    rules.emplace_back(name.str(), std::move(data[i]), options);
  }
  return rules;
}

}  // namespace autograph::rules
