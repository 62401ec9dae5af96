import { createQuickJSExecutor, createIsolatedVMExecutor } from './src/index.ts';
for (let i = 0; i < 3; i++) {
  let t = performance.now();
  const ex = createQuickJSExecutor({ poolSize: 1 });
  await ex.run('return 1');
  const a = performance.now() - t;
  t = performance.now();
  await ex.close();
  const b = performance.now() - t;
  t = performance.now();
  const iv = await createIsolatedVMExecutor({ poolSize: 1 });
  const c = performance.now() - t;
  t = performance.now();
  await iv.run('return 1');
  const d = performance.now() - t;
  t = performance.now();
  await iv.close();
  const e = performance.now() - t;
  console.log({ qjsFirstRun: a, qjsClose: b, ivmCreate: c, ivmFirstRun: d, ivmClose: e });
}
