// Renders the sizing report in headless Chromium and fails on console errors, charts without
// data, a blank or missing screenshot, a repeated series colour, a missing target marker, a cut
// legend and horizontal overflow at a 1,400 px window; prints `make run`'s report to PDF and fails
// past 8 pages or on a table, chart or text the print layout leaves unreadable. Skipped (with the
// reason) when no Chromium is found; `make test` installs it. Label: browser.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <set>
#include <thread>

#include "planner_test_util.hpp"
#include "report/report_writer.hpp"
#include "report_fixture.hpp"
#include "tests/support/test_paths.hpp"

using namespace engramsim::planner;
using namespace engramsim::report;
using namespace engramsim::planner::testing;
namespace fs = std::filesystem;

namespace {

std::string find_chromium() {
  if (const char* env = std::getenv("ENGRAMSIM_CHROMIUM"); env != nullptr && *env != '\0') return env;
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "/usr/bin:/bin";
    std::size_t start = 0;
    while (start <= dirs.size()) {
      const std::size_t end = std::min(dirs.find(':', start), dirs.size());
      const fs::path candidate = fs::path(dirs.substr(start, end - start)) / name;
      if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
      start = end + 1;
    }
  }
  return "";
}

// Runs argv with stdout+stderr to `log`; kills it after `timeout`. Returns the exit status or -1.
int run_with_timeout(const std::vector<std::string>& args, const fs::path& log, std::chrono::seconds timeout) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::setpgid(0, 0);  // its own process group, so the whole browser can be killed on timeout
    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return -1;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

std::uint32_t be32(const std::string& s, std::size_t at) {
  return (std::uint32_t(std::uint8_t(s[at])) << 24) | (std::uint32_t(std::uint8_t(s[at + 1])) << 16) |
         (std::uint32_t(std::uint8_t(s[at + 2])) << 8) | std::uint32_t(std::uint8_t(s[at + 3]));
}

struct Image {
  std::uint32_t width = 0;
  std::uint32_t height = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;  // row-major, channels bytes per pixel
};

// Minimal PNG decoder for 8-bit RGB/RGBA/grey, non-interlaced (what Chromium writes).
Image decode_png(const std::string& png) {
  Image img;
  if (png.size() < 8 || png.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) throw std::runtime_error("not a PNG");
  std::string idat;
  int bit_depth = 0;
  int color_type = 0;
  int interlace = 0;
  for (std::size_t at = 8; at + 8 <= png.size();) {
    const std::uint32_t len = be32(png, at);
    const std::string type = png.substr(at + 4, 4);
    if (at + 12 + len > png.size()) throw std::runtime_error("truncated PNG chunk");
    if (type == "IHDR") {
      img.width = be32(png, at + 8);
      img.height = be32(png, at + 12);
      bit_depth = std::uint8_t(png[at + 16]);
      color_type = std::uint8_t(png[at + 17]);
      interlace = std::uint8_t(png[at + 20]);
    } else if (type == "IDAT") {
      idat += png.substr(at + 8, len);
    } else if (type == "IEND") {
      break;
    }
    at += 12 + len;
  }
  if (bit_depth != 8 || interlace != 0) throw std::runtime_error("unsupported PNG layout");
  img.channels = color_type == 2 ? 3 : color_type == 6 ? 4 : color_type == 0 ? 1 : color_type == 4 ? 2 : 0;
  if (img.channels == 0) throw std::runtime_error("unsupported PNG colour type");
  const std::size_t stride = std::size_t(img.width) * img.channels;
  std::vector<std::uint8_t> raw((stride + 1) * img.height);
  uLongf raw_len = raw.size();
  if (::uncompress(raw.data(), &raw_len, reinterpret_cast<const Bytef*>(idat.data()), idat.size()) != Z_OK ||
      raw_len != raw.size())
    throw std::runtime_error("PNG data does not inflate to the image size");
  img.pixels.assign(stride * img.height, 0);
  const int bpp = img.channels;
  for (std::size_t y = 0; y < img.height; ++y) {
    const std::uint8_t filter = raw[y * (stride + 1)];
    const std::uint8_t* in = &raw[y * (stride + 1) + 1];
    std::uint8_t* out = &img.pixels[y * stride];
    const std::uint8_t* prev = y > 0 ? &img.pixels[(y - 1) * stride] : nullptr;
    for (std::size_t x = 0; x < stride; ++x) {
      const int a = x >= std::size_t(bpp) ? out[x - bpp] : 0;
      const int b = prev ? prev[x] : 0;
      const int c = prev && x >= std::size_t(bpp) ? prev[x - bpp] : 0;
      int v = in[x];
      switch (filter) {
        case 0:
          break;
        case 1:
          v += a;
          break;
        case 2:
          v += b;
          break;
        case 3:
          v += (a + b) / 2;
          break;
        case 4: {
          const int p = a + b - c;
          const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
          v += (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
          break;
        }
        default:
          throw std::runtime_error("bad PNG filter");
      }
      out[x] = static_cast<std::uint8_t>(v);
    }
  }
  return img;
}

std::string chart_svg(const std::string& html, const std::string& id) {
  const auto start = html.find("data-chart=\"" + id + "\"");
  if (start == std::string::npos) return "";
  const auto end = html.find("</svg>", start);
  return end == std::string::npos ? "" : html.substr(start, end - start);
}

std::vector<std::string> chromium_args(const std::string& chromium, const fs::path& profile, const std::string& size) {
  return {chromium,
          "--headless",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-quic",
          "--no-first-run",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--user-data-dir=" + profile.string(),
          "--enable-logging=stderr",
          "--v=0",
          "--window-size=" + size};
}

// The series colours of one chart's svg: each g.series's data-color.
std::vector<std::string> series_colours(const std::string& svg) {
  std::vector<std::string> out;
  const std::string key = "data-color=\"";
  for (auto at = svg.find("class=\"series\""); at != std::string::npos; at = svg.find("class=\"series\"", at + 1)) {
    const auto k = svg.find(key, at);
    if (k == std::string::npos) continue;
    const std::string c = svg.substr(k + key.size(), 7);
    if (c != "#000000") out.push_back(c);
  }
  return out;
}

// Loads the page in headless Chromium at a `window` (1,400 px wide unless given) and returns the
// layout self-check its script wrote to <body data-checks>, and the dumped DOM (console errors land
// in it with the log).
nlohmann::json page_checks(const std::string& chromium, const fs::path& html_path, const fs::path& work,
                           std::string& out, const std::string& window = "1400,1000") {
  const fs::path profile = work / "profile";
  fs::create_directories(profile);
  auto args = chromium_args(chromium, profile, window);
  args.insert(args.end(), {"--virtual-time-budget=3000", "--dump-dom", "file://" + html_path.string()});
  const fs::path dom = work / "dom.html";
  EXPECT_EQ(run_with_timeout(args, dom, std::chrono::seconds(120)), 0) << read_file(dom);
  out = read_file(dom);
  const auto at = out.find("data-checks=\"");
  if (at == std::string::npos) {
    ADD_FAILURE() << "the page's layout check did not run";
    return nlohmann::json::object();
  }
  const std::string attr = out.substr(at + 13, out.find('"', at + 13) - at - 13);
  std::string checks;  // the attribute with &quot; unescaped
  for (std::size_t i = 0; i < attr.size(); ++i) {
    if (attr.compare(i, 6, "&quot;") == 0) {
      checks += '"';
      i += 5;
    } else {
      checks += attr[i];
    }
  }
  return nlohmann::json::parse(checks);
}

// The wide fixture's context with a validation error, so the recommended curve carries its band.
void with_validation(const fs::path& dir) {
  ReportContext c = *read_context(dir);
  c.validation.by_gpu = {{"b300", 0.062}, {"b200", 0.081}};
  c.validation.serving_throughput = 0.09;
  write_context(dir, c);
}

// The printed page: A4 with 12 mm margins leaves 186 mm, 703 CSS px at 96 px per inch. Text under
// 7 pt (9.33 CSS px) is too small to read on paper.
constexpr const char* kPrintWindow = "703,1000";
constexpr double kMinPrintTextPx = 7.0 * 96.0 / 72.0;

// The pages of a PDF as Chromium writes it: its "/Type /Page" objects (not the "/Type /Pages" tree).
int pdf_page_count(const std::string& pdf) {
  int pages = 0;
  for (auto at = pdf.find("/Type"); at != std::string::npos; at = pdf.find("/Type", at + 1)) {
    std::size_t k = at + 5;
    while (k < pdf.size() && (pdf[k] == ' ' || pdf[k] == '\n' || pdf[k] == '\r')) ++k;
    if (pdf.compare(k, 5, "/Page") == 0 && (k + 5 >= pdf.size() || !std::isalnum(std::uint8_t(pdf[k + 5])))) ++pages;
  }
  return pages;
}

// The report as it lays out on paper, shown on screen: its print rules applied to every medium (they
// follow the screen rules, so they win where both set a property). A report without print rules
// comes back as it is: it prints as it shows.
std::string print_layout(std::string html) {
  const std::string from = "@media print";
  for (std::size_t at; (at = html.find(from)) != std::string::npos;) html.replace(at, from.size(), "@media all");
  return html;
}

// A copy of `make run`'s results folder (tests/planner/data/make-run) in `dir`, with its report.
void make_run_report(const fs::path& dir) {
  fs::copy(fs::path(engramsim::test::source_root()) / "tests/planner/data/make-run", dir,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  engramsim::report::write_report(load_results(dir), dir);
}

}  // namespace

// `make run`'s report printed to PDF: at most 8 pages. In its print layout, at the width of the
// printed page: every chart shown, no table or chart wider than the page, no legend running past
// its chart, no text drawn under 7 pt, no button or CSV link (they do nothing on paper).
TEST(ReportBrowser, MakeRunReportPrintsToAtMostEightReadablePages) {
  TempDir t;
  make_run_report(t.path());
  const fs::path html_path = t / "report.html";
  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not found (tools/install-deps.sh --with-browser installs it)";
  const fs::path pdf = t / "report.pdf";
  auto args = chromium_args(chromium, t / "profile", "1400,1000");
  args.insert(args.end(), {"--no-pdf-header-footer", "--print-to-pdf=" + pdf.string(), "file://" + html_path.string()});
  ASSERT_EQ(run_with_timeout(args, t / "pdf.log", std::chrono::seconds(120)), 0) << read_file(t / "pdf.log");
  const int pages = pdf_page_count(read_file(pdf));
  EXPECT_GE(pages, 1);
  EXPECT_LE(pages, 8) << "`make run`'s report prints to " << pages << " pages";

  const fs::path print_path = t / "print.html";
  write_file(print_path, print_layout(read_file(html_path)));
  std::string out;
  const auto j = page_checks(chromium, print_path, t.path(), out, kPrintWindow);
  ASSERT_TRUE(j.contains("min_text_px")) << j;
  EXPECT_LE(j.at("page_overflow").get<int>(), 0) << j;
  EXPECT_TRUE(j.at("too_wide").empty()) << j;
  EXPECT_TRUE(j.at("legend_cut").empty()) << j;
  EXPECT_GE(j.at("min_text_px").get<double>(), kMinPrintTextPx) << j;
  EXPECT_EQ(j.at("interactive_shown").get<int>(), 0) << j;
  EXPECT_EQ(j.at("charts_shown").get<int>(), 6) << j;
  for (const char* bad : {"Uncaught", "ERROR:CONSOLE", "net::ERR_"}) EXPECT_EQ(out.find(bad), std::string::npos) << bad;
}

// 24 configurations on three GPUs, 18 of which fit: every series its own colour, the target
// marked, no legend cut, nothing wider than a 1,400 px window, no console error; the page's own
// layout check (body data-checks) read from Chromium's DOM after load. Also writes the screenshot
// docs/planning.md shows when ENGRAMSIM_REPORT_SCREENSHOT names a file.
TEST(ReportBrowser, ManyConfigurationsStayReadableAt1400Pixels) {
  TempDir t;
  make_analytic_results(t.path(), 2, kWideScenario);
  with_validation(t.path());
  engramsim::report::write_report(load_results(t.path()), t.path());
  const fs::path html_path = t / "report.html";
  const std::string html = read_file(html_path);
  for (const char* id : {"pareto", "tokens_per_dollar"}) {
    const auto colours = series_colours(chart_svg(html, id));
    EXPECT_EQ(colours.size(), 18u) << id;  // TP2 with Engram in HBM does not fit: 18 of 24 run
    EXPECT_EQ(std::set<std::string>(colours.begin(), colours.end()).size(), colours.size())
        << id << ": a colour repeats";
    EXPECT_NE(chart_svg(html, id).find("class=\"target-marker\""), std::string::npos) << id << ": no target marker";
    EXPECT_NE(chart_svg(html, id).find("class=\"uncertainty-band\""), std::string::npos) << id << ": no band";
  }
  EXPECT_EQ(html.find("\u2026"), std::string::npos) << "a legend name is cut";

  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not found (tools/install-deps.sh --with-browser installs it)";
  std::string out;
  const auto j = page_checks(chromium, html_path, t.path(), out);
  ASSERT_FALSE(j.empty());
  EXPECT_LE(j.at("page_overflow").get<int>(), 0) << j;
  EXPECT_LE(j.at("table_overflow").get<int>(), 1) << j;
  EXPECT_TRUE(j.at("repeated_colours").empty()) << j;
  EXPECT_TRUE(j.at("legend_cut").empty()) << j;
  EXPECT_GE(j.at("target_markers").get<int>(), 2) << j;
  for (const char* bad : {"Uncaught", "ERROR:CONSOLE", "net::ERR_"}) EXPECT_EQ(out.find(bad), std::string::npos) << bad;
  if (const char* shot = std::getenv("ENGRAMSIM_REPORT_SCREENSHOT"); shot != nullptr && *shot != '\0') {
    auto sargs = chromium_args(chromium, t / "profile", "1400,3000");
    sargs.insert(sargs.end(), {"--screenshot=" + std::string(shot), "file://" + html_path.string()});
    EXPECT_EQ(run_with_timeout(sargs, t / "shot.log", std::chrono::seconds(120)), 0);
  }
}

// The checks above would catch the faults they are for: the same report with one series' colour
// given to another, the target markers removed and a legend cut off fails each, in the page (and
// the first two in the test's own reading of the SVG).
TEST(ReportBrowser, LayoutCheckCatchesARepeatedColourAMissingTargetMarkerAndACutLegend) {
  TempDir t;
  make_analytic_results(t.path(), 2, kWideScenario);
  engramsim::report::write_report(load_results(t.path()), t.path());
  std::string html = read_file(t / "report.html");
  const auto first = series_colours(chart_svg(html, "pareto"));
  ASSERT_GE(first.size(), 2u);
  const std::string from = "data-color=\"" + first[1] + "\"";
  for (std::size_t at; (at = html.find(from)) != std::string::npos;)
    html.replace(at, from.size(), "data-color=\"" + first[0] + "\"");
  const std::string marker = "class=\"target-marker\"";
  for (std::size_t at; (at = html.find(marker)) != std::string::npos;)
    html.replace(at, marker.size(), "class=\"removed\"");
  // A view box narrower than the chart cuts the first chart's legend off.
  const auto vb = html.find("viewBox=\"0 0 800 ");
  ASSERT_NE(vb, std::string::npos);
  html.replace(vb, 18, "viewBox=\"0 0 560 ");
  const auto colours = series_colours(chart_svg(html, "pareto"));
  EXPECT_LT(std::set<std::string>(colours.begin(), colours.end()).size(), colours.size());
  EXPECT_EQ(chart_svg(html, "pareto").find(marker), std::string::npos);
  const fs::path broken = t / "broken.html";
  write_file(broken, html);

  const std::string chromium = find_chromium();
  if (chromium.empty()) GTEST_SKIP() << "Chromium not found (tools/install-deps.sh --with-browser installs it)";
  std::string out;
  const auto j = page_checks(chromium, broken, t.path(), out);
  ASSERT_FALSE(j.empty());
  EXPECT_FALSE(j.at("repeated_colours").empty()) << j;
  EXPECT_EQ(j.at("target_markers").get<int>(), 0) << j;
  EXPECT_FALSE(j.at("legend_cut").empty()) << j;
}

TEST(ReportBrowser, RendersInHeadlessChromiumWithoutErrorsAndWithData) {
  TempDir t;
  make_analytic_results(t.path());
  engramsim::report::write_report(load_results(t.path()), t.path());
  const fs::path html_path = t / "report.html";
  const std::string html = read_file(html_path);

  // Every chart is present and holds data marks (not the "no data" placeholder).
  for (const char* id : {"pareto", "tokens_per_dollar", "hbm_footprint", "ttft_cdf", "tpot_cdf", "engram_stall"}) {
    const std::string svg = chart_svg(html, id);
    ASSERT_FALSE(svg.empty()) << "chart " << id << " missing";
    const bool has_data = svg.find("class=\"series-line\"") != std::string::npos ||
                          svg.find("class=\"marker\"") != std::string::npos ||
                          svg.find("class=\"bar\"") != std::string::npos;
    EXPECT_TRUE(has_data) << "chart " << id << " has no data elements";
    EXPECT_EQ(svg.find("no data"), std::string::npos) << "chart " << id << " is empty";
  }

  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    GTEST_SKIP() << "Chromium not found (set ENGRAMSIM_CHROMIUM or install it: tools/install-deps.sh --with-browser)";
  }
  const fs::path png = t / "screenshot.png";
  const fs::path log = t / "chromium.log";
  const fs::path profile = t / "profile";
  fs::create_directories(profile);
  auto args = chromium_args(chromium, profile, "1280,4000");
  args.insert(args.end(), {"--screenshot=" + png.string(), "file://" + html_path.string()});
  const int rc = run_with_timeout(args, log, std::chrono::seconds(120));
  const std::string out = read_file(log);
  ASSERT_EQ(rc, 0) << "chromium failed or timed out; its log:\n" << out;

  // Console errors of the page (a failed load, a blocked resource or a script error) fail the test.
  std::stringstream ss(out);
  for (std::string line; std::getline(ss, line);) {
    const bool console = line.find(":CONSOLE") != std::string::npos;
    const bool error =
        line.find("Uncaught") != std::string::npos || line.find("Failed to load resource") != std::string::npos ||
        line.find("net::ERR_") != std::string::npos || (console && line.find("ERROR:CONSOLE") != std::string::npos);
    EXPECT_FALSE(error) << "console error: " << line;
  }

  ASSERT_TRUE(fs::exists(png)) << "no screenshot; chromium log:\n" << out;
  EXPECT_GT(fs::file_size(png), 50'000u) << "the screenshot is suspiciously small (blank page?)";
  const Image img = decode_png(read_file(png));
  EXPECT_EQ(img.width, 1280u);
  EXPECT_EQ(img.height, 4000u);
  // Not blank: many distinct colours and a real share of non-white pixels.
  std::set<std::uint32_t> colours;
  std::size_t non_white = 0;
  const std::size_t n = std::size_t(img.width) * img.height;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint8_t* p = &img.pixels[i * img.channels];
    std::uint32_t rgb = p[0];
    if (img.channels >= 3) rgb = (std::uint32_t(p[0]) << 16) | (std::uint32_t(p[1]) << 8) | p[2];
    if (colours.size() < 10'000) colours.insert(rgb);
    if (rgb != 0xFFFFFFu) ++non_white;
  }
  EXPECT_GT(colours.size(), 20u) << "the screenshot is nearly uniform";
  EXPECT_GT(non_white, n / 100) << "less than 1% of the screenshot is not white";
}
