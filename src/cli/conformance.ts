// The conformance command's entry. First the embedded server's thread starts loading its modules (this file
// imports nothing else, so it starts before the command's modules are even read); then the command and the
// harness load beside it.
import './warm-embedded.js';

await import('./conformance-command.js');
