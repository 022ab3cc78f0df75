// Jest runs test files in a CommonJS module system that cannot load an ES module such as
// tradebill-sandbox; its global setup and teardown run in plain Node, which can.
module.exports = {
  globalSetup: './sandbox-setup.js',
  globalTeardown: './sandbox-teardown.js',
};
