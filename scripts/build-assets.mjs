// `make install` (scripts/install-assets.sh): bundle the pages' JavaScript and CSS with esbuild
// from assets/ into vendor/app/, which Django serves as /static/vendor/app/. Entry points:
//   base.js  every page: htmx (with the CSRF header), KaTeX for .math elements
//   quiz.js  the quiz page: clock, autosave, navigation, submit, CodeMirror 6 for code answers
//   site.css every page: the site's styles and KaTeX's (fonts copied beside it)
// Writes vendor/app/meta.json (esbuild's metafile) so `manage.py pages_bench` can size them.
import { build } from "esbuild";
import { writeFileSync } from "node:fs";

const result = await build({
  entryPoints: { base: "assets/js/base.js", quiz: "assets/js/quiz.js", site: "assets/css/site.css" },
  outdir: "vendor/app",
  bundle: true,
  minify: true,
  format: "esm",
  splitting: true,
  target: ["es2020"],
  loader: { ".woff2": "file", ".woff": "file", ".ttf": "file" },
  assetNames: "fonts/[name]",
  chunkNames: "chunks/[name]-[hash]",
  metafile: true,
  logLevel: "warning",
});
writeFileSync("vendor/app/meta.json", JSON.stringify(result.metafile));
