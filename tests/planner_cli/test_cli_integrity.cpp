// Nothing mixed (issue 47): results computed from other inputs are never joined to a folder's. A
// shard rerun after a card edit is refused and a shard computed elsewhere from the edited card is
// refused by merge, both naming the card; a resume after a preset edit names the preset; a tool
// version change is refused unless accepted knowingly; merge with the wrong shard count leaves a
// complete result and its report untouched. Each case runs the tiny scenario (6 points, well under
// a second) from copies of the catalog files in a scratch folder.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_test_util.hpp"

namespace engramsim::planner::cli_testing {
namespace {

// Exit codes of docs/cli.md.
constexpr int kMergeIncomplete = 4;
constexpr int kInputsChanged = 5;

// The tiny sweep reading its model card and engine preset from copies in `t`.
struct CopiedInputs {
  fs::path card;
  fs::path engine;
};

CopiedInputs copy_inputs(const fs::path& t) {
  CopiedInputs c{t / "card.yaml", t / "engine.yaml"};
  fs::copy_file(source_file("models/cards/deepseek-v4.1-flash.yaml"), c.card);
  fs::copy_file(source_file("models/engines/vllm.yaml"), c.engine);
  return c;
}

std::vector<std::string> sweep_args(const fs::path& out, const CopiedInputs& in, std::vector<std::string> extra = {}) {
  std::vector<std::string> a = {"sweep",           data_file("tiny_sweep.yaml"),
                                "--out",           out.string(),
                                "--jobs",          "1",
                                "--progress",      "none",
                                "--refine-rounds", "0",
                                "--set",           "model=" + in.card.string(),
                                "--set",           "deployment.engine=" + in.engine.string()};
  a.insert(a.end(), extra.begin(), extra.end());
  return a;
}

std::vector<std::string> shard(const std::string& which) { return {"--shard", which}; }

// An edit that changes the file's bytes and nothing it means.
void touch_content(const fs::path& p) { write_file(p, read_file(p) + "# edited after the first run\n"); }

bool mentions(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The sweep split four ways, every shard run to the end.
void run_four_shards(const fs::path& dir, const CopiedInputs& in, const fs::path& scratch) {
  for (int i = 0; i < 4; ++i) {
    const CliResult r = run_cli(sweep_args(dir, in, shard(std::to_string(i) + "/4")), scratch);
    ASSERT_EQ(r.code, 0) << describe(r);
  }
}

TEST(CliIntegrity, ShardRerunAfterACardEditIsRefusedAndMergeNamesTheCard) {
  TempDir t;
  const CopiedInputs in = copy_inputs(t.path());
  const fs::path dir = t / "sweep";
  ASSERT_NO_FATAL_FAILURE(run_four_shards(dir, in, t.path()));
  const std::string manifest = read_file(dir / "sweep.json");
  touch_content(in.card);

  // Shard 2 rerun in place after the edit: refused before it writes, naming the card.
  fs::remove(dir / "results.shard-2-of-4.jsonl");
  const CliResult rerun = run_cli(sweep_args(dir, in, shard("2/4")), t.path());
  EXPECT_EQ(rerun.code, kInputsChanged) << describe(rerun);
  EXPECT_TRUE(mentions(rerun.err, "model card")) << rerun.err;
  EXPECT_TRUE(mentions(rerun.err, in.card.string())) << rerun.err;
  EXPECT_FALSE(fs::exists(dir / "results.shard-2-of-4.jsonl"));
  EXPECT_EQ(read_file(dir / "sweep.json"), manifest);

  // Shard 2 computed in another folder from the edited card and copied in: merge refuses it,
  // naming the card and the shard, and writes no results.jsonl.
  const fs::path elsewhere = t / "elsewhere";
  const CliResult away = run_cli(sweep_args(elsewhere, in, shard("2/4")), t.path());
  ASSERT_EQ(away.code, 0) << describe(away);
  for (const fs::path& f : fs::directory_iterator(elsewhere))
    if (f.filename().string().rfind("results.shard-2-of-4", 0) == 0)
      fs::copy_file(f, dir / f.filename(), fs::copy_options::overwrite_existing);
  const CliResult m = run_cli({"merge", dir.string(), "--shards", "4"}, t.path());
  EXPECT_EQ(m.code, kInputsChanged) << describe(m);
  EXPECT_TRUE(mentions(m.err, "model card")) << m.err;
  EXPECT_TRUE(mentions(m.err, in.card.string())) << m.err;
  EXPECT_TRUE(mentions(m.err, "results.shard-2-of-4")) << m.err;
  EXPECT_FALSE(fs::exists(dir / "results.jsonl"));
  EXPECT_FALSE(fs::exists(dir / "report.html"));
}

TEST(CliIntegrity, ResumeAfterAPresetEditIsRefusedNamingThePreset) {
  TempDir t;
  const CopiedInputs in = copy_inputs(t.path());
  const fs::path dir = t / "sweep";
  const CliResult first = run_cli(sweep_args(dir, in), t.path());
  ASSERT_EQ(first.code, 0) << describe(first);
  const std::string results = read_file(dir / "results.jsonl");
  const std::string manifest = read_file(dir / "sweep.json");

  touch_content(in.engine);
  const CliResult r = run_cli(sweep_args(dir, in, {"--resume"}), t.path());
  EXPECT_EQ(r.code, kInputsChanged) << describe(r);
  EXPECT_TRUE(mentions(r.err, "engine preset")) << r.err;
  EXPECT_TRUE(mentions(r.err, in.engine.string())) << r.err;
  EXPECT_TRUE(mentions(r.err, "changed since")) << r.err;
  EXPECT_EQ(read_file(dir / "results.jsonl"), results);
  EXPECT_EQ(read_file(dir / "sweep.json"), manifest);
}

TEST(CliIntegrity, AVersionChangeIsRefusedUnlessAcceptedKnowingly) {
  TempDir t;
  const CopiedInputs in = copy_inputs(t.path());
  const fs::path dir = t / "sweep";
  const CliResult first = run_cli(sweep_args(dir, in), t.path());
  ASSERT_EQ(first.code, 0) << describe(first);
  // As if another build had computed these results.
  nlohmann::json m = nlohmann::json::parse(read_file(dir / "sweep.json"));
  ASSERT_TRUE(m.contains("tool")) << m.dump();
  m["tool"]["commit"] = "0000000";
  write_file(dir / "sweep.json", m.dump(2) + "\n");

  const CliResult refused = run_cli(sweep_args(dir, in, {"--resume"}), t.path());
  EXPECT_EQ(refused.code, kInputsChanged) << describe(refused);
  EXPECT_TRUE(mentions(refused.err, "commit 0000000")) << refused.err;
  EXPECT_TRUE(mentions(refused.err, "--accept-version-change")) << refused.err;

  const CliResult accepted = run_cli(sweep_args(dir, in, {"--resume", "--accept-version-change"}), t.path());
  EXPECT_EQ(accepted.code, 0) << describe(accepted);

  // The flag accepts a version change only: an edited input is still refused.
  touch_content(in.card);
  const CliResult edited = run_cli(sweep_args(dir, in, {"--resume", "--accept-version-change"}), t.path());
  EXPECT_EQ(edited.code, kInputsChanged) << describe(edited);
  EXPECT_TRUE(mentions(edited.err, in.card.string())) << edited.err;
}

TEST(CliIntegrity, MergeWithTheWrongShardCountLeavesACompleteResultUntouched) {
  TempDir t;
  const CopiedInputs in = copy_inputs(t.path());
  const fs::path dir = t / "sweep";
  ASSERT_NO_FATAL_FAILURE(run_four_shards(dir, in, t.path()));
  const CliResult complete = run_cli({"merge", dir.string(), "--shards", "4"}, t.path());
  ASSERT_EQ(complete.code, 0) << describe(complete);
  const std::string results = read_file(dir / "results.jsonl");
  const std::string report = read_file(dir / "report.md");

  // A 2-way shard lands in the folder (a second array launched with the wrong count), and merge is
  // asked for 2 shards: it holds half the points, so the complete file stays as it is.
  const CliResult half = run_cli(sweep_args(dir, in, shard("0/2")), t.path());
  ASSERT_EQ(half.code, 0) << describe(half);
  const CliResult wrong = run_cli({"merge", dir.string(), "--shards", "2"}, t.path());
  EXPECT_EQ(wrong.code, kMergeIncomplete) << describe(wrong);
  EXPECT_TRUE(mentions(wrong.err, "not replaced")) << wrong.err;
  EXPECT_TRUE(read_file(dir / "results.jsonl") == results) << "the complete results.jsonl was replaced";
  EXPECT_TRUE(read_file(dir / "report.md") == report) << "the report of the complete results was replaced";
}

TEST(CliIntegrity, APartialMergeRemovesAStaleReport) {
  TempDir t;
  const CopiedInputs in = copy_inputs(t.path());
  const fs::path dir = t / "sweep";
  const CliResult s0 = run_cli(sweep_args(dir, in, shard("0/2")), t.path());
  ASSERT_EQ(s0.code, 0) << describe(s0);
  // A report left from an earlier state of the folder describes results the merge does not hold.
  write_file(dir / "report.html", "stale");
  write_file(dir / "report.md", "stale");
  const CliResult m = run_cli({"merge", dir.string(), "--shards", "2"}, t.path());
  EXPECT_EQ(m.code, kMergeIncomplete) << describe(m);
  EXPECT_TRUE(fs::exists(dir / "results.jsonl"));
  EXPECT_FALSE(fs::exists(dir / "report.html"));
  EXPECT_FALSE(fs::exists(dir / "report.md"));
  EXPECT_TRUE(mentions(m.err, "report")) << m.err;
}

}  // namespace
}  // namespace engramsim::planner::cli_testing
