// The conformance command's entry. First the embedded server's thread starts loading its modules (its first
// import evaluates before this file's others are even read); then the command and the harness load beside it.
import './warm-embedded.js';

await import('./conformance-command.js');
