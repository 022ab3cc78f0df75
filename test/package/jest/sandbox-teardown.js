module.exports = () => globalThis.sandbox.close();
