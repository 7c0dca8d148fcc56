// fetch_content and web_search (docs/tools.md, "Web"): the model's way to
// read the web, through the egress proxy and the session's domain
// allowlist (web_fetch.h) like any sandboxed command. They run in sepp's
// process (the tool worker has no network), on the proxy's terms.
#include <cctype>
#include <cstdlib>
#include <functional>
#include <future>

#include "base/secrets.h"
#include "tools/args.h"
#include "tools/html_text.h"
#include "tools/tool.h"
#include "tools/truncate.h"
#include "tools/web_fetch.h"
#include "tools/web_tools.h"
#include "net/url.h"

namespace sepp::tools {

namespace {

std::string PercentEncode(std::string_view s) {
  static const char* kHex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

const sandbox::Policy& PolicyOf(const ToolContext& ctx) {
  static const sandbox::Policy kNoNetwork;  // net off
  return ctx.policy ? *ctx.policy : kNoNetwork;
}

ToolResult Failed(std::string text) {
  ToolResult r;
  r.text = std::move(text);
  r.is_error = true;
  return r;
}

void AddDenials(ToolResult& r, const std::vector<sandbox::Denial>& ds) {
  r.denials.insert(r.denials.end(), ds.begin(), ds.end());
  if (!r.denials.empty()) r.details["denied"] = true;
}

// One page as the model reads it.
std::string PageText(const WebResponse& w) {
  std::string type = w.content_type.substr(0, w.content_type.find(';'));
  for (char& c : type) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string head = "URL: " + w.final_url + "\nStatus: " + std::to_string(w.status);
  if (w.redirects > 0) head += " (after " + std::to_string(w.redirects) + " redirect(s))";
  if (w.truncated) head += "\n[the page was cut at the size limit]";
  bool html = type == "text/html" || type == "application/xhtml+xml" ||
              (type.empty() && w.body.find("<html") != std::string::npos);
  if (html) {
    HtmlText t = HtmlToMarkdown(w.body);
    return (t.title.empty() ? "" : "# " + t.title + "\n") + head + "\n\n" + t.markdown;
  }
  bool text = type.rfind("text/", 0) == 0 || type == "application/json" || type.ends_with("+json") ||
              type == "application/xml" || type.ends_with("+xml") || type == "application/javascript";
  if (text) return head + "\n\n" + w.body;
  return head + "\n\n[" + (type.empty() ? "content of unknown type" : type) + ", " +
         std::to_string(w.body.size()) + " bytes: not text, not shown]";
}

class FetchContentTool : public Tool {
 public:
  std::string name() const override { return "fetch_content"; }
  std::string description() const override {
    return "Fetch URL(s) and extract readable content as markdown.\n"
           "Only domains the session's sandbox allows are reachable (the same allowlist as for "
           "commands); a refused domain can be asked for with retry_with_access. Private and "
           "loopback addresses are refused unless allowed by name. At most 5 redirects, 5 MB and "
           "30 s per page.";
  }
  Json parameters() const override {
    return Json{{"type", "object"},
                {"additionalProperties", false},
                {"properties",
                 {{"url", {{"type", "string"}, {"description", "A URL to fetch (http or https)."}}},
                  {"urls",
                   {{"type", "array"},
                    {"items", {{"type", "string"}}},
                    {"maxItems", 10},
                    {"description", "Several URLs, fetched three at a time."}}}}}};
  }
  std::string Summary(const Json& args) const override {
    if (args.contains("url") && args["url"].is_string()) return "fetch " + args["url"].get<std::string>();
    return "fetch " + std::to_string(args.value("urls", Json::array()).size()) + " URLs";
  }
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    ToolResult r;
    if (auto st = CheckArgsObject(args); !st.ok()) return Failed(st.error().message);
    std::vector<std::string> urls;
    if (args.contains("url")) {
      if (!args["url"].is_string()) return Failed("url must be a string");
      urls.push_back(args["url"]);
    }
    if (args.contains("urls")) {
      if (!args["urls"].is_array()) return Failed("urls must be an array of strings");
      for (const auto& u : args["urls"]) {
        if (!u.is_string()) return Failed("urls must be an array of strings");
        urls.push_back(u);
      }
    }
    if (urls.empty()) return Failed("give url (a string) or urls (an array of strings)");
    if (urls.size() > 10) return Failed("at most 10 URLs per call");
    std::vector<WebOutcome> outcomes(urls.size());
    const sandbox::Policy& policy = PolicyOf(ctx);
    for (size_t start = 0; start < urls.size(); start += 3) {
      std::vector<std::future<void>> running;
      for (size_t i = start; i < std::min(urls.size(), start + 3); ++i)
        running.push_back(std::async(std::launch::async, [&, i] {
          WebRequest req;
          req.url = urls[i];
          outcomes[i] = WebSend(req, policy, ctx.cancel);
        }));
      for (auto& f : running) f.get();
    }
    bool all_failed = true;
    for (size_t i = 0; i < urls.size(); ++i) {
      if (urls.size() > 1) r.text += (i ? "\n\n" : "") + std::string("=== ") + urls[i] + " ===\n";
      AddDenials(r, outcomes[i].denials);
      if (!outcomes[i].response.ok()) {
        r.text += "Error: " + outcomes[i].response.error().message;
        continue;
      }
      all_failed = false;
      r.text += PageText(*outcomes[i].response);
    }
    r.is_error = all_failed;
    r.text = Redact(r.text);
    // A page longer than the result can hold goes out whole as the call's
    // output stream, like bash's: the agent's output sidecar keeps it and
    // the model continues there (docs/sidecar.md).
    const TruncateLimits limits;
    bool over = r.text.size() > limits.max_bytes || CountLines(r.text) > limits.max_lines;
    std::string full = over && ctx.on_output ? r.text : std::string();
    LimitResult(r, limits);
    if (r.truncated && !full.empty()) {
      ctx.on_output(full);
      r.details["output_bytes"] = full.size();
    }
    return r;
  }

};

// A search provider the user configured by its variable; none is used
// without one.
struct SearchProvider {
  std::string name;
  std::string host;  // allowed for the search request itself
  WebRequest request;
  std::function<std::vector<Json>(const Json&)> results;  // {title, url, snippet}
};

// {title, url, snippet} from a provider's list of result objects, whose
// snippet is in snippet_key.
std::vector<Json> ResultsFrom(const Json& list, const char* snippet_key) {
  std::vector<Json> r;
  if (!list.is_array()) return r;
  for (const auto& x : list)
    if (x.is_object())
      r.push_back({{"title", x.value("title", "")}, {"url", x.value("url", "")},
                   {"snippet", x.value(snippet_key, "")}});
  return r;
}

std::vector<SearchProvider> ConfiguredProviders(const std::string& query, int count) {
  std::vector<SearchProvider> out;
  if (const char* base = std::getenv("SEPP_SEARXNG_URL"); base && *base) {
    SearchProvider p;
    p.name = "searxng";
    std::string b = base;
    while (!b.empty() && b.back() == '/') b.pop_back();
    p.request.url = b + "/search?format=json&q=" + PercentEncode(query);
    if (auto u = net::ParseUrl(p.request.url); u.ok()) p.host = u->host;
    p.results = [](const Json& j) { return ResultsFrom(j.value("results", Json::array()), "content"); };
    out.push_back(std::move(p));
  }
  if (const char* key = std::getenv("BRAVE_API_KEY"); key && *key) {
    SearchProvider p;
    p.name = "brave";
    p.host = "api.search.brave.com";
    p.request.url = "https://api.search.brave.com/res/v1/web/search?count=" + std::to_string(count) +
                    "&q=" + PercentEncode(query);
    p.request.headers = {{"Accept", "application/json"}, {"X-Subscription-Token", key}};
    p.results = [](const Json& j) {
      Json web = j.value("web", Json::object());
      return ResultsFrom(web.is_object() ? web.value("results", Json::array()) : Json::array(), "description");
    };
    out.push_back(std::move(p));
  }
  if (const char* key = std::getenv("TAVILY_API_KEY"); key && *key) {
    SearchProvider p;
    p.name = "tavily";
    p.host = "api.tavily.com";
    p.request.method = "POST";
    p.request.url = "https://api.tavily.com/search";
    p.request.headers = {{"Content-Type", "application/json"},
                         {"Authorization", std::string("Bearer ") + key}};
    p.request.body = Json{{"query", query}, {"max_results", count}}.dump();
    p.results = [](const Json& j) { return ResultsFrom(j.value("results", Json::array()), "content"); };
    out.push_back(std::move(p));
  }
  return out;
}

class WebSearchTool : public Tool {
 public:
  std::string name() const override { return "web_search"; }
  std::string description() const override {
    return "Search the web; returns titles, URLs and snippets (read a page with fetch_content).\n"
           "Uses the search provider the user configured (SEPP_SEARXNG_URL, BRAVE_API_KEY or "
           "TAVILY_API_KEY); without one it says so.";
  }
  Json parameters() const override {
    return Json{{"type", "object"},
                {"additionalProperties", false},
                {"properties",
                 {{"query", {{"type", "string"}, {"description", "What to search for."}}},
                  {"queries",
                   {{"type", "array"},
                    {"items", {{"type", "string"}}},
                    {"maxItems", 4},
                    {"description", "2-4 varied phrasings, searched one after another."}}},
                  {"numResults",
                   {{"type", "integer"}, {"minimum", 1}, {"maximum", 20},
                    {"description", "Results per query. Defaults to 5."}}},
                  {"provider",
                   {{"type", "string"},
                    {"enum", {"auto", "searxng", "brave", "tavily"}},
                    {"description", "Which configured provider; auto = the first configured."}}}}}};
  }
  std::string Summary(const Json& args) const override {
    if (args.contains("query") && args["query"].is_string()) return "search " + args["query"].get<std::string>();
    return "web search";
  }
  ToolResult Run(const Json& args, ToolContext& ctx) override {
    ToolResult r;
    if (auto st = CheckArgsObject(args); !st.ok()) return Failed(st.error().message);
    std::vector<std::string> queries;
    if (args.contains("query")) {
      if (!args["query"].is_string()) return Failed("query must be a string");
      queries.push_back(args["query"]);
    }
    for (const auto& q : args.value("queries", Json::array()))
      if (q.is_string()) queries.push_back(q);
    if (queries.empty()) return Failed("give query (a string) or queries (an array of strings)");
    if (queries.size() > 4) queries.resize(4);
    auto count = OptionalInt(args, "numResults", 1, 20);
    if (!count.ok()) return Failed(count.error().message);
    std::string wanted = args.value("provider", "auto");
    std::string out;
    bool any = false;
    for (const auto& q : queries) {
      auto providers = ConfiguredProviders(q, static_cast<int>(count->value_or(5)));
      if (wanted != "auto")
        std::erase_if(providers, [&](const SearchProvider& p) { return p.name != wanted; });
      if (providers.empty())
        return Failed(wanted == "auto"
                          ? "no web search provider is configured: set SEPP_SEARXNG_URL (a SearXNG "
                            "instance), BRAVE_API_KEY or TAVILY_API_KEY in sepp's environment"
                          : "the search provider '" + wanted + "' is not configured");
      SearchProvider& p = providers.front();
      p.request.also_allow = {p.host};
      p.request.max_bytes = 2u << 20;
      WebOutcome o = WebSend(p.request, PolicyOf(ctx), ctx.cancel);
      AddDenials(r, o.denials);
      out += (out.empty() ? "" : "\n\n") + std::string("## ") + q + " (" + p.name + ")\n";
      if (!o.response.ok()) {
        out += "Error: " + o.response.error().message;
        continue;
      }
      if (o.response->status != 200) {
        out += "Error: the provider answered HTTP " + std::to_string(o.response->status);
        continue;
      }
      Json j = Json::parse(o.response->body, nullptr, false);
      if (j.is_discarded() || !j.is_object()) {
        out += "Error: the provider's answer is not a JSON object";
        continue;
      }
      auto results = p.results(j);
      if (results.size() > static_cast<size_t>(count->value_or(5))) results.resize(count->value_or(5));
      if (results.empty()) out += "No results.";
      int i = 0;
      for (const auto& x : results) {
        out += std::to_string(++i) + ". " + x.value("title", "") + "\n   " + x.value("url", "") + "\n";
        std::string snippet = x.value("snippet", "");
        if (!snippet.empty()) out += "   " + snippet.substr(0, 500) + "\n";
      }
      any = true;
    }
    r.text = Redact(out);  // a provider's key never reaches the model
    r.is_error = !any;
    LimitResult(r);
    return r;
  }
};

}  // namespace

std::vector<std::unique_ptr<Tool>> MakeWebTools() {
  std::vector<std::unique_ptr<Tool>> t;
  t.push_back(std::make_unique<FetchContentTool>());
  t.push_back(std::make_unique<WebSearchTool>());
  return t;
}

}  // namespace sepp::tools
