module.exports = async () => {
  const { DEMO_FIXTURES, startSandbox } = await import('tradebill-sandbox');
  globalThis.sandbox = await startSandbox({ fixtures: DEMO_FIXTURES });
  process.env.SANDBOX = globalThis.sandbox.url; // the test files read it
};
