// Corpus-style cases for the structures the original's clients parse: code tokens (from Pygments' documented output), math, emoji, spoilers.

export interface ClientCase {
  name: string;
  input: string;
  expected_output: string;
}

/** Code blocks: Pygments short classes, `w` whitespace tokens where the lexer emits them, `hll` lines. */
export const CODE_CASES: ClientCase[] = [
  {
    name: "python_tokens",
    input: "```python\nimport os\n\nclass Foo(Base):\n    \"\"\"Doc.\"\"\"\n    def run(self, n=3):\n        # loop\n        for i in range(n):\n            print(f\"{i}: ok\", 'x', 0x1F, 2.5)\n        return None\n```",
    expected_output:
      "<div class=\"codehilite\" data-code-language=\"Python\"><pre><span></span><code><span class=\"kn\">import</span> <span class=\"nn\">os</span>\n\n<span class=\"k\">class</span> <span class=\"nc\">Foo</span><span class=\"p\">(</span><span class=\"n\">Base</span><span class=\"p\">):</span>\n<span class=\"w\">    </span><span class=\"sd\">\"\"\"Doc.\"\"\"</span>\n    <span class=\"k\">def</span> <span class=\"nf\">run</span><span class=\"p\">(</span><span class=\"bp\">self</span><span class=\"p\">,</span> <span class=\"n\">n</span><span class=\"o\">=</span><span class=\"mi\">3</span><span class=\"p\">):</span>\n        <span class=\"c1\"># loop</span>\n        <span class=\"k\">for</span> <span class=\"n\">i</span> <span class=\"ow\">in</span> <span class=\"nb\">range</span><span class=\"p\">(</span><span class=\"n\">n</span><span class=\"p\">):</span>\n            <span class=\"nb\">print</span><span class=\"p\">(</span><span class=\"sa\">f</span><span class=\"s2\">\"</span><span class=\"si\">{</span><span class=\"n\">i</span><span class=\"si\">}</span><span class=\"s2\">: ok\"</span><span class=\"p\">,</span> <span class=\"s1\">'x'</span><span class=\"p\">,</span> <span class=\"mh\">0x1F</span><span class=\"p\">,</span> <span class=\"mf\">2.5</span><span class=\"p\">)</span>\n        <span class=\"k\">return</span> <span class=\"kc\">None</span>\n</code></pre></div>",
  },
  {
    name: "javascript_tokens",
    input: "```javascript\nconst x = require(\"fs\");\nfunction add(a, b) {\n  // sum\n  return a + b * 2.5;\n}\nlet s = `t ${x}`;\nclass A extends B { constructor() { this.y = null; } }\n```",
    expected_output:
      "<div class=\"codehilite\" data-code-language=\"JavaScript\"><pre><span></span><code><span class=\"kd\">const</span><span class=\"w\"> </span><span class=\"nx\">x</span><span class=\"w\"> </span><span class=\"o\">=</span><span class=\"w\"> </span><span class=\"nx\">require</span><span class=\"p\">(</span><span class=\"s2\">\"fs\"</span><span class=\"p\">);</span>\n<span class=\"kd\">function</span><span class=\"w\"> </span><span class=\"nx\">add</span><span class=\"p\">(</span><span class=\"nx\">a</span><span class=\"p\">,</span><span class=\"w\"> </span><span class=\"nx\">b</span><span class=\"p\">)</span><span class=\"w\"> </span><span class=\"p\">{</span>\n<span class=\"w\">  </span><span class=\"c1\">// sum</span>\n<span class=\"w\">  </span><span class=\"k\">return</span><span class=\"w\"> </span><span class=\"nx\">a</span><span class=\"w\"> </span><span class=\"o\">+</span><span class=\"w\"> </span><span class=\"nx\">b</span><span class=\"w\"> </span><span class=\"o\">*</span><span class=\"w\"> </span><span class=\"mf\">2.5</span><span class=\"p\">;</span>\n<span class=\"p\">}</span>\n<span class=\"kd\">let</span><span class=\"w\"> </span><span class=\"nx\">s</span><span class=\"w\"> </span><span class=\"o\">=</span><span class=\"w\"> </span><span class=\"sb\">`t </span><span class=\"si\">${</span><span class=\"nx\">x</span><span class=\"si\">}</span><span class=\"sb\">`</span><span class=\"p\">;</span>\n<span class=\"kd\">class</span><span class=\"w\"> </span><span class=\"nx\">A</span><span class=\"w\"> </span><span class=\"k\">extends</span><span class=\"w\"> </span><span class=\"nx\">B</span><span class=\"w\"> </span><span class=\"p\">{</span><span class=\"w\"> </span><span class=\"kr\">constructor</span><span class=\"p\">()</span><span class=\"w\"> </span><span class=\"p\">{</span><span class=\"w\"> </span><span class=\"k\">this</span><span class=\"p\">.</span><span class=\"nx\">y</span><span class=\"w\"> </span><span class=\"o\">=</span><span class=\"w\"> </span><span class=\"kc\">null</span><span class=\"p\">;</span><span class=\"w\"> </span><span class=\"p\">}</span><span class=\"w\"> </span><span class=\"p\">}</span>\n</code></pre></div>",
  },
  {
    name: "go_tokens",
    input: "```go\npackage main\n\nimport \"fmt\"\n\nfunc main() {\n\tx := 3\n\tfmt.Println(\"hi\", x) // print\n}\n```",
    expected_output:
      "<div class=\"codehilite\" data-code-language=\"Go\"><pre><span></span><code><span class=\"kn\">package</span><span class=\"w\"> </span><span class=\"nx\">main</span>\n\n<span class=\"kn\">import</span><span class=\"w\"> </span><span class=\"s\">\"fmt\"</span>\n\n<span class=\"kd\">func</span><span class=\"w\"> </span><span class=\"nx\">main</span><span class=\"p\">()</span><span class=\"w\"> </span><span class=\"p\">{</span>\n<span class=\"w\">\t</span><span class=\"nx\">x</span><span class=\"w\"> </span><span class=\"o\">:=</span><span class=\"w\"> </span><span class=\"mi\">3</span>\n<span class=\"w\">\t</span><span class=\"nx\">fmt</span><span class=\"p\">.</span><span class=\"nx\">Println</span><span class=\"p\">(</span><span class=\"s\">\"hi\"</span><span class=\"p\">,</span><span class=\"w\"> </span><span class=\"nx\">x</span><span class=\"p\">)</span><span class=\"w\"> </span><span class=\"c1\">// print</span>\n<span class=\"p\">}</span>\n</code></pre></div>",
  },
  {
    name: "sql_tokens",
    input: "```sql\nSELECT id, name FROM users WHERE age > 21 AND name LIKE 'a%' ORDER BY id DESC LIMIT 10;\n-- comment\nINSERT INTO t (a) VALUES (1);\n```",
    expected_output:
      "<div class=\"codehilite\" data-code-language=\"SQL\"><pre><span></span><code><span class=\"k\">SELECT</span><span class=\"w\"> </span><span class=\"n\">id</span><span class=\"p\">,</span><span class=\"w\"> </span><span class=\"n\">name</span><span class=\"w\"> </span><span class=\"k\">FROM</span><span class=\"w\"> </span><span class=\"n\">users</span><span class=\"w\"> </span><span class=\"k\">WHERE</span><span class=\"w\"> </span><span class=\"n\">age</span><span class=\"w\"> </span><span class=\"o\">&gt;</span><span class=\"w\"> </span><span class=\"mi\">21</span><span class=\"w\"> </span><span class=\"k\">AND</span><span class=\"w\"> </span><span class=\"n\">name</span><span class=\"w\"> </span><span class=\"k\">LIKE</span><span class=\"w\"> </span><span class=\"s1\">'a%'</span><span class=\"w\"> </span><span class=\"k\">ORDER</span><span class=\"w\"> </span><span class=\"k\">BY</span><span class=\"w\"> </span><span class=\"n\">id</span><span class=\"w\"> </span><span class=\"k\">DESC</span><span class=\"w\"> </span><span class=\"k\">LIMIT</span><span class=\"w\"> </span><span class=\"mi\">10</span><span class=\"p\">;</span>\n<span class=\"c1\">-- comment</span>\n<span class=\"k\">INSERT</span><span class=\"w\"> </span><span class=\"k\">INTO</span><span class=\"w\"> </span><span class=\"n\">t</span><span class=\"w\"> </span><span class=\"p\">(</span><span class=\"n\">a</span><span class=\"p\">)</span><span class=\"w\"> </span><span class=\"k\">VALUES</span><span class=\"w\"> </span><span class=\"p\">(</span><span class=\"mi\">1</span><span class=\"p\">);</span>\n</code></pre></div>",
  },
  {
    name: "json_tokens",
    input: "```json\n{\n  \"name\": \"parley\",\n  \"version\": 1,\n  \"ok\": true,\n  \"list\": [1, 2.5, null]\n}\n```",
    expected_output:
      "<div class=\"codehilite\" data-code-language=\"JSON\"><pre><span></span><code><span class=\"p\">{</span>\n<span class=\"w\">  </span><span class=\"nt\">\"name\"</span><span class=\"p\">:</span><span class=\"w\"> </span><span class=\"s2\">\"parley\"</span><span class=\"p\">,</span>\n<span class=\"w\">  </span><span class=\"nt\">\"version\"</span><span class=\"p\">:</span><span class=\"w\"> </span><span class=\"mi\">1</span><span class=\"p\">,</span>\n<span class=\"w\">  </span><span class=\"nt\">\"ok\"</span><span class=\"p\">:</span><span class=\"w\"> </span><span class=\"kc\">true</span><span class=\"p\">,</span>\n<span class=\"w\">  </span><span class=\"nt\">\"list\"</span><span class=\"p\">:</span><span class=\"w\"> </span><span class=\"p\">[</span><span class=\"mi\">1</span><span class=\"p\">,</span><span class=\"w\"> </span><span class=\"mf\">2.5</span><span class=\"p\">,</span><span class=\"w\"> </span><span class=\"kc\">null</span><span class=\"p\">]</span>\n<span class=\"p\">}</span>\n</code></pre></div>",
  },
  {
    name: "lua_tokens",
    input: "```lua\nlocal x = 10\nfunction f(a, b)\n  -- sum\n  return a + b\nend\nprint(\"hi\", f(1, 2))\n```",
    expected_output:
      "<div class=\"codehilite\" data-code-language=\"Lua\"><pre><span></span><code><span class=\"kd\">local</span> <span class=\"n\">x</span> <span class=\"o\">=</span> <span class=\"mi\">10</span>\n<span class=\"kr\">function</span> <span class=\"nf\">f</span><span class=\"p\">(</span><span class=\"n\">a</span><span class=\"p\">,</span> <span class=\"n\">b</span><span class=\"p\">)</span>\n  <span class=\"c1\">-- sum</span>\n  <span class=\"kr\">return</span> <span class=\"n\">a</span> <span class=\"o\">+</span> <span class=\"n\">b</span>\n<span class=\"kr\">end</span>\n<span class=\"nb\">print</span><span class=\"p\">(</span><span class=\"s2\">\"hi\"</span><span class=\"p\">,</span> <span class=\"n\">f</span><span class=\"p\">(</span><span class=\"mi\">1</span><span class=\"p\">,</span> <span class=\"mi\">2</span><span class=\"p\">))</span>\n</code></pre></div>",
  },
  {
    name: "diff_tokens",
    input: "```diff\ndiff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-old\n+new\n same\n```",
    expected_output:
      "<div class=\"codehilite\" data-code-language=\"Diff\"><pre><span></span><code><span class=\"gh\">diff --git a/f b/f</span>\n<span class=\"gd\">--- a/f</span>\n<span class=\"gi\">+++ b/f</span>\n<span class=\"gu\">@@ -1,2 +1,2 @@</span>\n<span class=\"gd\">-old</span>\n<span class=\"gi\">+new</span>\n<span class=\"w\"> </span>same\n</code></pre></div>",
  },
  {
    name: "hl_lines_from_marker",
    input: "```\n:::python hl_lines=\"2 3\"\ndef f(x):\n    return x\nprint(f(1))\n```",
    expected_output:
      "<div class=\"codehilite\"><pre><span></span><code><span class=\"p\">:::</span><span class=\"n\">python</span> <span class=\"n\">hl_lines</span><span class=\"o\">=</span><span class=\"s2\">&quot;2 3&quot;</span>\n<span class=\"hll\"><span class=\"k\">def</span> <span class=\"nf\">f</span><span class=\"p\">(</span><span class=\"n\">x</span><span class=\"p\">):</span>\n</span><span class=\"hll\">    <span class=\"k\">return</span> <span class=\"n\">x</span>\n</span><span class=\"nb\">print</span><span class=\"p\">(</span><span class=\"n\">f</span><span class=\"p\">(</span><span class=\"mi\">1</span><span class=\"p\">))</span>\n</code></pre></div>",
  },
  {
    name: "hl_lines_without_language",
    input: "```\n::text hl_lines=\"2\"\nx = 1\ny = 2\n```",
    expected_output:
      "<div class=\"codehilite\"><pre><span></span><code>::text hl_lines=&quot;2&quot;\n<span class=\"hll\">x = 1\n</span>y = 2\n</code></pre></div>",
  },
];
