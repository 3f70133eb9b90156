package check

// retireModels lets Run's models retire files once nothing about them is
// pending (model.Options.Retire), so that memory follows the files that
// can still change; retireBatch is their model.Options.RetireBatch.
// Variables so that a test can compare with models that keep everything.
var (
	retireModels = true
	retireBatch  = 0
)

// auditPins turns on model.Options.AuditPins in Run's models: a test
// sets it to find a rule that keeps an inode it did not pin.
var auditPins = false
