// qscope's worker (crates/app/src/worker.rs): the page's own WebAssembly module, started in a
// dedicated module worker to quantize a large tensor off the page's thread. The page names its
// module and wasm (same origin only) in this script's query: `?m=<module.js>&w=<module_bg.wasm>`.
const here = new URL(self.location.href);
const same = (name) => {
  const url = new URL(here.searchParams.get(name) ?? '', here);
  if (url.origin !== here.origin) throw new Error(`qscope worker: ${name} is not of this origin`);
  return url.href;
};
const bindings = await import(same('m'));
await bindings.default({ module_or_path: same('w') });
bindings.worker_start();
