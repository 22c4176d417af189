// The operator graphs against what the Hugging Face modules were traced to
// launch (the dataset's opgraphs/*.csv): per model and mode, the multiset of
// (phase, kernel, shape) must match, after the documented corrections for
// trace entries that launch no kernel in PyTorch eager (see docs/model-forecast.md).
#include "tilecast/op_graph.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "tilecast/error.hpp"
#include "tilecast/model_zoo.hpp"

using namespace tilecast;

namespace {

using Row = std::map<std::string, std::string>;

std::vector<Row> read_csv(const std::string& path) {
  const std::string text = test::read_file(path);
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> rec;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rec.push_back(field);
      field.clear();
    } else if (c == '\n') {
      rec.push_back(field);
      field.clear();
      records.push_back(rec);
      rec.clear();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !rec.empty()) {
    rec.push_back(field);
    records.push_back(rec);
  }
  std::vector<Row> rows;
  for (std::size_t r = 1; r < records.size(); ++r) {
    Row row;
    for (std::size_t c = 0; c < records[0].size() && c < records[r].size(); ++c)
      row[records[0][c]] = records[r][c];
    rows.push_back(row);
  }
  return rows;
}

struct TraceOp {
  std::string name;                         // Linear, BMM, VECadd, MEM, ...
  std::vector<std::vector<double>> shapes;  // MEM: several tuples; others: one
};

// Parses "[['Linear', (1024, 1280, 3840)], ['MEM', ((1,), (1, 2))]]".
std::vector<TraceOp> parse_ops(const std::string& s) {
  std::vector<TraceOp> ops;
  std::size_t i = 0;
  while ((i = s.find('\'', i)) != std::string::npos) {
    const std::size_t end = s.find('\'', i + 1);
    TraceOp op;
    op.name = s.substr(i + 1, end - i - 1);
    // the shape runs to the ']' that closes this entry
    std::size_t j = end + 1;
    int depth = 0;
    std::vector<double> cur;
    std::string num;
    bool any = false;
    for (; j < s.size(); ++j) {
      const char c = s[j];
      if (c == '(' || c == '[') {
        ++depth;
        if (depth >= 2 || op.name != "MEM") cur.clear();
      } else if (c == ')' || c == ']') {
        if (!num.empty()) cur.push_back(std::stod(num)), num.clear();
        if (depth == 0) break;  // the entry's closing bracket
        if ((op.name == "MEM" && depth == 2) || (op.name != "MEM" && depth == 1)) {
          op.shapes.push_back(cur);
          any = true;
        }
        --depth;
      } else if (std::isdigit(static_cast<unsigned char>(c))) {
        num += c;
      } else if (!num.empty()) {
        cur.push_back(std::stod(num));
        num.clear();
      }
    }
    (void)any;
    ops.push_back(op);
    i = j + 1;
  }
  return ops;
}

std::string fmt(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

std::string trace_signature(const std::string& phase, const TraceOp& op) {
  if (op.name == "MEM") {
    double total = 0;
    for (const auto& t : op.shapes) {
      double p = 1;
      for (double d : t) p *= d;
      total += p;
    }
    return phase + "|MEM|" + fmt(total);
  }
  std::string kind = op.name == "Linear" ? "linear" : op.name == "BMM" ? "bmm" : op.name.substr(3);
  std::string dims = op.name == "Linear" ? "1" : "";
  for (double d : op.shapes.at(0)) dims += (dims.empty() ? "" : ",") + fmt(d);
  return phase + "|" + kind + "|" + dims;
}

std::string graph_signature(const GraphOp& o) {
  const char* phase = o.phase == Phase::forward ? "fw" : o.phase == Phase::backward ? "bw" : "acc";
  if (o.mem_elements > 0) return std::string(phase) + "|MEM|" + fmt(o.mem_elements);
  return std::string(phase) + "|" + std::string(op_name(o.kernel.op)) + "|" +
         dims_to_string(o.kernel);
}

// Kernels the tracer marked as "misc" although PyTorch launches them.
const std::set<std::string> kNotTraced = {
    "wpe",    "token_type_embeddings", "position_embeddings", "embed_positions", "max (clamp)",
    "reshape"};

std::multiset<std::string> expected_from_trace(const std::string& model, const std::string& path) {
  std::multiset<std::string> out;
  for (const auto& r : read_csv(path)) {
    const std::string& name = r.at("Name");
    const std::string& opname = r.at("OpName");
    if (opname == "getitem") continue;  // views: no kernel
    if (model == "opt" && (name == "dropout" || name == "contiguous_3"))
      continue;  // p = 0; already contiguous
    auto fw = parse_ops(r.at("FwOps"));
    auto bw = parse_ops(r.at("BwOps"));
    auto acc = parse_ops(r.at("AccOps"));
    if (opname == "VECadd" || opname == "VECaddu" || opname == "contiguous")
      bw.clear();  // pass-through gradient
    if (opname == "VECdiv" && r.at("InputShapes").find(", (1,)]") != std::string::npos &&
        bw.size() > 1)
      bw.resize(1);  // divisor is a constant tensor: one gradient
    if ((model == "bert" && name == "mul") ||
        (model == "opt" && (name == "cumsum" || name == "mul")))
      bw.clear();  // mask / position-id arithmetic: no gradient
    if (name == "lm_head" && acc.size() > 1) acc.resize(1);     // no bias
    if (opname == "VECln" && !bw.empty()) bw.push_back(bw[0]);  // + the gamma/beta gradient kernel
    if (name == "bert_pooler_activation") {                     // traced as relu; nn.Tanh
      for (auto& o : fw) o.name = "VECtanh";
      if (!bw.empty()) {
        TraceOp a = bw[0], b = bw[0];
        a.name = "VECmulu";
        b.name = "VECaddu";
        bw = {a, b};
      }
    }
    for (const auto& o : fw) out.insert(trace_signature("fw", o));
    for (const auto& o : bw) out.insert(trace_signature("bw", o));
    for (const auto& o : acc) out.insert(trace_signature("acc", o));
  }
  return out;
}

std::multiset<std::string> ours(const OpGraph& g) {
  std::multiset<std::string> out;
  for (const auto& s : g.sections)
    for (const auto& o : s.ops)
      if (!kNotTraced.count(std::string(o.name))) out.insert(graph_signature(o));
  return out;
}

std::string diff(const std::multiset<std::string>& a, const std::multiset<std::string>& b) {
  std::vector<std::string> only_a, only_b;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(only_a));
  std::set_difference(b.begin(), b.end(), a.begin(), a.end(), std::back_inserter(only_b));
  std::string s = "trace only:";
  for (const auto& x : only_a) s += " [" + x + "]";
  s += "\nours only:";
  for (const auto& x : only_b) s += " [" + x + "]";
  return s;
}

struct Case {
  std::string file, zoo, model;
  std::int64_t seq, batch;
  bool training;
};

std::vector<Case> dense_cases() {
  std::vector<Case> cases;
  const std::map<std::string, std::pair<std::string, std::string>> zoo = {
      {"bert_large", {"bert-large", "bert"}},
      {"gpt2_large", {"gpt2-large", "gpt2"}},
      {"gpt3_27", {"gpt3-2.7b", "gpt2"}},
      {"gpt3_xl", {"gpt3-xl", "gpt2"}},
      {"opt_13", {"opt-1.3b", "opt"}}};
  for (const auto& e : std::filesystem::directory_iterator(test::data_dir() + "/opgraphs")) {
    const std::string stem = e.path().stem().string();
    std::vector<std::string> parts;
    std::size_t start = 0, pos;
    while ((pos = stem.find('-', start)) != std::string::npos) {
      parts.push_back(stem.substr(start, pos - start));
      start = pos + 1;
    }
    parts.push_back(stem.substr(start));
    if (parts.size() != 4 || !zoo.count(parts[0])) continue;  // -fusion, -dp4, -tp4, -pp4...
    cases.push_back({e.path().string(), zoo.at(parts[0]).first, zoo.at(parts[0]).second,
                     std::stoll(parts[2]), std::stoll(parts[3]), parts[1] == "train"});
  }
  std::sort(cases.begin(), cases.end(),
            [](const Case& a, const Case& b) { return a.file < b.file; });
  return cases;
}

}  // namespace

TEST_SUITE("op_graph") {
  TEST_CASE("dense graphs match the traced kernels (one layer + embeddings + head)") {
    const auto cases = dense_cases();
    REQUIRE(cases.size() >= 16);
    for (const auto& c : cases) {
      CAPTURE(c.file);
      OpGraph g = build_op_graph(
          find_model(c.zoo),
          make_workload(c.training ? Mode::training : Mode::inference, c.batch, c.seq));
      const auto want = expected_from_trace(c.model, c.file);
      const auto got = ours(g);
      INFO(diff(want, got));
      CHECK(want == got);
    }
  }

  TEST_CASE("switch transformer GEMM work matches the full trace") {
    for (const char* f :
         {"switchxl4-train-512-1", "switchxl4-train-512-2", "switchxl4-inf-512-2"}) {
      CAPTURE(f);
      const std::string path = test::data_dir() + "/opgraphs/" + f + ".csv";
      const bool training = std::string(f).find("train") != std::string::npos;
      const std::int64_t batch = std::string(f).back() - '0';
      double want_fw = 0, want_bw = 0;
      int want_linear = 0;
      for (const auto& r : read_csv(path)) {
        for (const auto& o : parse_ops(r.at("FwOps")))
          if (o.name == "Linear" || o.name == "BMM") {
            double p = 2;
            for (double d : o.shapes.at(0)) p *= d;
            want_fw += p;
            // module Linears only: the tracer files some attention matmuls
            // ("matmul_N") as Linear with flattened shapes; they are bmm's here
            // (their FLOPs are counted above either way)
            const bool module = r.at("OpName") == "Linear" && r.at("Name").rfind("matmul", 0) != 0;
            want_linear += o.name == "Linear" && module ? 1 : 0;
          }
        for (const auto& o : parse_ops(r.at("BwOps")))
          if (o.name == "Linear" || o.name == "BMM") {
            double p = 2;
            for (double d : o.shapes.at(0)) p *= d;
            want_bw += p;
          }
      }
      OpGraph g =
          build_op_graph(find_model("switchxl4"),
                         make_workload(training ? Mode::training : Mode::inference, batch, 512));
      int got_linear = 0;
      for (const auto& s : g.sections)
        for (const auto& o : s.ops)
          if (o.kernel.op == Op::linear && o.phase == Phase::forward) got_linear += int(s.count);
      double got_fw = 0, got_bw = 0;
      for (const auto& s : g.sections)
        for (const auto& o : s.ops)
          if (is_gemm(o.kernel.op)) {
            (o.phase == Phase::forward ? got_fw : got_bw) +=
                double(s.count) * kernel_flops(o.kernel);
          }
      CHECK(got_fw == doctest::Approx(want_fw).epsilon(1e-9));
      CHECK(got_bw == doctest::Approx(want_bw).epsilon(1e-9));
      CHECK(got_fw == doctest::Approx(graph_flops(g, Phase::forward) - 0).epsilon(0.05));
      CHECK(got_linear == want_linear);  // every projection, router and expert GEMM launched
    }
  }

  TEST_CASE("llama-family graphs: GQA, rotary and SwiGLU shapes") {
    const ModelConfig& m = find_model("llama3-8b");
    OpGraph g = build_op_graph(m, make_workload(Mode::training, 2, 128));
    REQUIRE(g.sections.size() == 3);
    const auto& layer = g.sections[1];
    CHECK(layer.count == 32);
    std::multiset<std::string> fw;
    for (const auto& o : layer.ops)
      if (o.phase == Phase::forward && is_gemm(o.kernel.op))
        fw.insert(std::string(op_name(o.kernel.op)) + " " + dims_to_string(o.kernel));
    const std::multiset<std::string> want = {
        "linear 1,256,4096,4096",  "linear 1,256,4096,1024",  "linear 1,256,4096,1024",
        "bmm 64,128,128,128",      "bmm 64,128,128,128",      "linear 1,256,4096,4096",
        "linear 1,256,4096,14336", "linear 1,256,4096,14336", "linear 1,256,14336,4096"};
    CHECK(fw == want);
    std::set<std::string> subs;
    for (const auto& o : layer.ops)
      if (!o.stands_for.empty()) subs.insert(std::string(o.stands_for));
    CHECK(subs.count("silu"));
    CHECK(subs.count("gqa repeat"));
    CHECK(subs.count("rotary cat"));
    CHECK(subs.count("rmsnorm mean"));
  }

  TEST_CASE("hand-checked FLOPs of a tiny GPT-2") {
    // H=8, 2 heads (hd 4), 1 layer, F=32, V=10, batch 1, seq 4 -> R = 4 rows.
    const char* cfg = R"({"model_type":"gpt2","n_embd":8,"n_head":2,"n_layer":1,
                          "n_inner":32,"vocab_size":10,"n_positions":16})";
    const ModelConfig m = parse_model_config(cfg, "tiny");
    const OpGraph inf = build_op_graph(m, make_workload(Mode::inference, 1, 4));
    // GEMMs: c_attn 2*4*8*24=1536, qk 2*2*4*4*4=256, av 256, c_proj 2*4*8*8=512,
    // c_fc 2*4*8*32=2048, mlp proj 2048, lm_head 2*4*8*10=640 -> 7296.
    // Vector ops (kernel_flops): add 32; ln 8*32 x3 = 768; div 32 (2*2*4*4=64 el? no: B*nh*S x S =
    // 8x4 = 32); softmax 5*32=160; residual adds 32 x2 = 64; gelu_new over 4x32=128 elements: mulu
    // 128, powu 256, mulu 128, add 128, mulu 128, tanh 768, addu 128, mul 128 -> 1792.
    const double gemm = 1536 + 256 + 256 + 512 + 2048 + 2048 + 640;
    const double vec = 32 + 768 + 32 + 160 + 64 + 1792;
    CHECK(graph_flops(inf, Phase::forward) == doctest::Approx(gemm + vec));
    // Training: every linear has two backward GEMMs of the same FLOPs; bmm likewise.
    const OpGraph tr = build_op_graph(m, make_workload(Mode::training, 1, 4));
    double bw_gemm = 0;
    for (const auto& s : tr.sections)
      for (const auto& o : s.ops)
        if (o.phase == Phase::backward && is_gemm(o.kernel.op)) bw_gemm += kernel_flops(o.kernel);
    CHECK(bw_gemm == doctest::Approx(2 * gemm));
  }

  TEST_CASE("too large workloads are errors, never wrapped integers") {
    const ModelConfig& m = find_model("gpt3-2.7b");
    CHECK_THROWS_AS(build_op_graph(m, make_workload(Mode::inference, 1LL << 30, 1LL << 20)), Error);
    CHECK_THROWS_AS(build_op_graph(m, make_workload(Mode::inference, 0, 128)), Error);
    CHECK_THROWS_AS(build_op_graph(m, make_workload(Mode::training, 1, -5)), Error);
    try {
      build_op_graph(m, make_workload(Mode::training, 4096, 65536));
      FAIL("expected an error");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).find("too large") != std::string::npos);
    }
  }
}
