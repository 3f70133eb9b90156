package syscalls

// Arguments by kind, for the rows of the table.

func argFD(name string) Arg                  { return Arg{Name: name, Kind: ArgFD} }
func argFDOther(name string) Arg             { return Arg{Name: name, Kind: ArgFDOther} }
func argDirfd(name string) Arg               { return Arg{Name: name, Kind: ArgDirfd} }
func argPath(name string) Arg                { return Arg{Name: name, Kind: ArgPath} }
func argTarget(name string) Arg              { return Arg{Name: name, Kind: ArgTarget} }
func argData(name string) Arg                { return Arg{Name: name, Kind: ArgData} }
func argIovec(name string) Arg               { return Arg{Name: name, Kind: ArgIovec} }
func argMsg(name string) Arg                 { return Arg{Name: name, Kind: ArgMsg} }
func argSize(name string) Arg                { return Arg{Name: name, Kind: ArgSize} }
func argOffset(name string) Arg              { return Arg{Name: name, Kind: ArgOffset} }
func argOffsetPtr(name string) Arg           { return Arg{Name: name, Kind: ArgOffsetPtr} }
func argOffsetOut(name string) Arg           { return Arg{Name: name, Kind: ArgOffsetOut} }
func argMode(name string) Arg                { return Arg{Name: name, Kind: ArgMode} }
func argStat(name string) Arg                { return Arg{Name: name, Kind: ArgStat} }
func argBuf(name string) Arg                 { return Arg{Name: name, Kind: ArgBuf} }
func argFDPair(name string) Arg              { return Arg{Name: name, Kind: ArgFDPair} }
func argAddr(name string) Arg                { return Arg{Name: name, Kind: ArgAddr} }
func argSockAddr(name string) Arg            { return Arg{Name: name, Kind: ArgSockAddr} }
func argOther(name string) Arg               { return Arg{Name: name, Kind: ArgOther} }
func argWhence(name string) Arg              { return Arg{Name: name, Kind: ArgWhence, Table: SeekWhence} }
func argFlags(name string, t *FlagTable) Arg { return Arg{Name: name, Kind: ArgFlags, Table: t} }
func argCmd(name string, t *FlagTable) Arg   { return Arg{Name: name, Kind: ArgCmd, Table: t} }
func argOpenHow(name string) Arg             { return Arg{Name: name, Kind: ArgOpenHow, Table: OpenFlags} }
func argCloneArgs(name string) Arg           { return Arg{Name: name, Kind: ArgCloneArgs, Table: CloneFlags} }

// args is a list of arguments (a row's Args), so that rows of one shape
// can share it.
func args(a ...Arg) []Arg { return a }
