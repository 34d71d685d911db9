// LanceDB `require`s the CommonJS apache-arrow; handing it the same copy keeps its `instanceof` checks true.
module.exports = { lancedb: require('@lancedb/lancedb'), arrow: require('apache-arrow') };
